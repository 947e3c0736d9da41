package vaultfmt

import (
	"errors"
	"fmt"
	"io"
)

// Derived items (FORMAT.md §2.11) are items a handler computes from the
// others, such as a search index segment, so that an open can restore
// instead of recompute. They belong to the compaction that wrote them:
// every compaction drops all of them and writes what the handler derives
// now, at the front of the new payload, and records their kind in the
// header's critical extension 0x8002, so a build that does not know the
// rule refuses the file instead of copying stale (or shredded) derived
// data into a new payload.

// Deriver is an optional interface of a [Handler] whose state can be
// written down as derived items.
type Deriver interface {
	// DerivedKind is the kind of the handler's derived items; never 0,
	// and never a kind it stores other items under.
	DerivedKind() Kind
	// Derive returns the derived items for a compaction to epoch, whose
	// payload holds exactly the items live reports. It may return none
	// (the next open then recomputes); an error stops the compaction.
	Derive(epoch uint64, live func(ID) bool) ([]Item, error)
}

// PayloadEnder is an optional interface of a [Handler]: during a full
// replay (open, or a reload after another process compacted), PayloadEnd
// is called once the payload's items have been applied and before the
// journal's, with the payload's epoch.
type PayloadEnder interface {
	PayloadEnd(epoch uint64) error
}

// Seal is the Poly1305 tag that ends an item's sealed body (2.6): it names
// one stored version of an item without opening it, so a derived item can
// say which versions it was computed from (2.11).
type Seal [16]byte

// SealedDeriver is an optional interface of a [Deriver] that wants, for
// each item the new payload holds, the seal of its stored version. The
// compaction then calls DeriveSealed instead of Derive.
type SealedDeriver interface {
	DeriveSealed(epoch uint64, live func(ID) bool, seal func(ID) (Seal, bool)) ([]Item, error)
}

// Skipper is an optional interface of a [Handler]. During a full replay
// that opens items (Open, a reload), once the payload's leading frames of
// derived items have been applied, SkipOpen is asked for a maker of
// predicates, and each later payload frame gets a predicate of its own
// from it, asked about the frame's entries in order on one goroutine (so
// it may keep what the frame's last entry taught it: the next item is
// most often the next row of what covers them). An item that it reports
// (skip true) is not opened, and reaches Apply with Covered set, no body,
// and Cover the number the predicate returned with it (the handler's own
// name for what covers it, so it need not look the item up twice). The
// maker may be called from several goroutines at once, and nil means
// open everything. Journal items are always opened.
type Skipper interface {
	SkipOpen() func() func(id ID, kind Kind, seal Seal) (cover uint32, skip bool)
}

// ErrReplayOpened, returned (or wrapped) by a [PayloadEnder] after a
// replay in which it skipped items, says that what covered them cannot
// be used after all: the vault resets the handler and replays the file
// again opening every item (no Skipper asked), once.
var ErrReplayOpened = errors.New("vaultfmt: replay again opening every item")

// sealOf is the seal of a put entry's stored body.
func sealOf(e *entry) Seal {
	var s Seal
	if n := len(e.sealedBody); n >= tagSize {
		copy(s[:], e.sealedBody[n-tagSize:])
	}
	return s
}

// derivedItems returns the handler's derived items for a compaction to
// hdr's epoch, checked, and sets hdr's derived kind; none for a handler
// that is no Deriver. live reports the items the new payload will hold.
// seals gives the seal of each such item, for a SealedDeriver. They are
// sealed as the payload is written (sweepLive), one at a time, not here:
// an index segment is most of the payload's bytes, and sealing them all
// first held a sealed copy beside the plaintext for the whole build (102
// MB of a 490 MB heap at 185,859 memories) and did that work under the
// exclusive lock.
func (v *Vault) derivedItems(hdr *header, live func(ID) bool, seals func() (map[ID]Seal, error)) ([]Item, error) {
	d, ok := v.h.(Deriver)
	if !ok {
		return nil, nil
	}
	kind := d.DerivedKind()
	var items []Item
	var err error
	if sd, ok := d.(SealedDeriver); ok {
		var m map[ID]Seal
		if m, err = seals(); err != nil {
			return nil, err
		}
		items, err = sd.DeriveSealed(hdr.epoch, live, func(id ID) (Seal, bool) {
			s, ok := m[id]
			return s, ok && live(id)
		})
	} else {
		items, err = d.Derive(hdr.epoch, live)
	}
	if err != nil {
		return nil, fmt.Errorf("vaultfmt: derive: %w", err)
	}
	for _, it := range items {
		if it.Kind != kind || kind == 0 {
			return nil, fmt.Errorf("vaultfmt: derive: item %x has kind %d, want the derived kind %d", it.ID, it.Kind, kind)
		}
		if live(it.ID) {
			return nil, fmt.Errorf("vaultfmt: derive: item %x has the id of a stored item", it.ID)
		}
		if len(it.Body) > MaxItemBytes {
			return nil, fmt.Errorf("vaultfmt: derive: item %x is %d bytes, too large for a frame", it.ID, len(it.Body))
		}
	}
	if len(items) > 0 {
		hdr.derived, hdr.plainDer = kind, !writeDerivedSealed
	}
	return items, nil
}

// derivedEntry is the payload entry of derived item it. It is stored
// plain (2.11): the payload frame it fills is its seal. A second seal
// under an item key of its own protected nothing more (a derived item is
// never copied into another payload, so there is no key of it to destroy)
// and cost an open of a 100,000-memory vault a second decryption of its
// 64 MB. With writeDerivedSealed it is sealed as before extension 0x8003.
func derivedEntry(k *keys, vaultID [16]byte, rnd io.Reader, it Item) (entry, error) {
	if writeDerivedSealed {
		return sealItem(k, vaultID, rnd, Change{Op: OpPut, Item: it})
	}
	return entry{op: OpPut, id: it.ID, kind: it.Kind, plain: it.Body, stored: true}, nil
}

// writeDerivedSealed makes compactions write derived items as the
// vaults before extension 0x8003 hold them, each sealed under an item key
// of its own (extension 0x8002): tests set it to check that such vaults
// still open as before.
var writeDerivedSealed = false

// derivedKindOf is the kind a compaction drops as derived: the one the old
// header names, else the handler's.
func (v *Vault) derivedKindOf(old *header) Kind {
	if old.derived != 0 {
		return old.derived
	}
	if d, ok := v.h.(Deriver); ok {
		return d.DerivedKind()
	}
	return 0
}
