package vaultfmt

import (
	"encoding/binary"
	"fmt"
)

// The ancestry record (FORMAT.md §2.2, header extension 0x0003): what the
// epoch a compaction writes descends from, so a rollback check that saw an
// earlier epoch can tell "a copy that moved forward and was compacted
// elsewhere" from "a copy written to separately, then compacted". Written
// only by a compaction, inside the new header, so a crash leaves either the
// old file (no new record) or the new one (the whole record).
//
//	value = count u8 (1..8) || count × ancestor, newest first
//	ancestor, 50 + 16·t bytes:
//	 +0        +8      +16            +48   +50
//	+---------+-------+--------------+-----+--------------------------+
//	| epoch   | seq   | chain (32)   |  t  | t tags (16 each)         |
//	+---------+-------+--------------+-----+--------------------------+
//	epoch: header epoch − 1 − i for the i-th ancestor (consecutive)
//	seq:   committed journal frames of that epoch when it was compacted
//	chain: the history chain of that epoch after seq frames (chain.go)
//	tags:  the AEAD tags of that epoch's journal frames seq−t .. seq−1
//
// Part of the format: do not change.
const (
	extAncestry     = 0x0003 // not critical: an older build skips it (and drops it when it compacts)
	maxAncestors    = 8      // epochs kept: a state seen more compactions ago cannot be verified
	maxAncestorTags = 1024   // tags kept per epoch: the newest frames of it
	maxAncestryTags = 2048   // tags kept in all, newest epochs first
	ancestorFixed   = 8 + 8 + 32 + 2
)

// ancestor is one earlier epoch as the ancestry record keeps it.
type ancestor struct {
	epoch uint64
	seq   uint64
	chain [32]byte
	tags  [][tagSize]byte // frames seq−len(tags) .. seq−1
}

// encodeAncestry writes the record's value; nil for no ancestors.
func encodeAncestry(as []ancestor) []byte {
	if len(as) == 0 {
		return nil
	}
	n := 1
	for i := range as {
		n += ancestorFixed + tagSize*len(as[i].tags)
	}
	b := make([]byte, 0, n)
	b = append(b, byte(len(as)))
	for i := range as {
		a := &as[i]
		b = binary.LittleEndian.AppendUint64(b, a.epoch)
		b = binary.LittleEndian.AppendUint64(b, a.seq)
		b = append(b, a.chain[:]...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(a.tags)))
		for _, t := range a.tags {
			b = append(b, t[:]...)
		}
	}
	return b
}

// parseAncestry decodes and checks the record's value. Anything a writer
// of this format could not have written is an error (the caller reports it
// as damage to the header). That the first ancestor is the header's epoch
// − 1 is not checked here, where no key has authenticated the header yet
// (a changed epoch is the MAC's to catch): DescendsFrom uses a record only
// when it is.
func parseAncestry(val []byte) ([]ancestor, error) {
	r := &reader{b: val}
	n := int(r.u8())
	if r.err || n < 1 || n > maxAncestors {
		return nil, fmt.Errorf("ancestry record holds %d epochs, want 1..%d", n, maxAncestors)
	}
	as := make([]ancestor, n)
	total := 0
	for i := range as {
		a := &as[i]
		a.epoch, a.seq = r.u64(), r.u64()
		copy(a.chain[:], r.bytes(32))
		t := int(r.u16())
		switch {
		case r.err:
			return nil, fmt.Errorf("ancestry record truncated in epoch %d of %d", i+1, n)
		case i == 0 && a.epoch < uint64(n-1):
			return nil, fmt.Errorf("ancestry record holds %d epochs before epoch %d", n, a.epoch+1)
		case i > 0 && a.epoch != as[0].epoch-uint64(i):
			return nil, fmt.Errorf("ancestry record names epoch %d where epoch %d belongs", a.epoch, as[0].epoch-uint64(i))
		case uint64(t) > a.seq || t > maxAncestorTags:
			return nil, fmt.Errorf("ancestry record keeps %d tags of epoch %d's %d frames (at most %d)", t, a.epoch, a.seq, maxAncestorTags)
		}
		if total += t; total > maxAncestryTags {
			return nil, fmt.Errorf("ancestry record keeps more than %d tags", maxAncestryTags)
		}
		raw := r.bytes(tagSize * t)
		if r.err {
			return nil, fmt.Errorf("ancestry record truncated in epoch %d's tags", a.epoch)
		}
		a.tags = make([][tagSize]byte, t)
		for j := range a.tags {
			copy(a.tags[j][:], raw[tagSize*j:])
		}
	}
	if r.off != len(val) {
		return nil, fmt.Errorf("ancestry record has %d bytes after its last epoch", len(val)-r.off)
	}
	return as, nil
}

// nextAncestry is the ancestry of the epoch that compacting st writes: st's
// own epoch as it stands (its frames, chain and newest tags), then st's
// header's ancestors, cut to maxAncestors epochs and to the tag budgets.
func (st *fileState) nextAncestry() []ancestor {
	hist := st.history()
	as := []ancestor{{epoch: st.hdr.epoch, seq: st.seq, chain: hist[st.seq], tags: st.tags}}
	for _, a := range st.hdr.ancestry {
		if len(as) == maxAncestors {
			break
		}
		as = append(as, a)
	}
	budget := maxAncestryTags
	for i := range as {
		t := as[i].tags
		keep := min(len(t), maxAncestorTags, budget)
		as[i].tags = append([][tagSize]byte(nil), t[len(t)-keep:]...)
		budget -= keep
	}
	return as
}

// Descent is what a file says about an earlier state of its vault.
type Descent int

const (
	// DescentUnknown: the file keeps no record that reaches the state (it
	// was compacted more than maxAncestors times since, or by a build that
	// writes no ancestry, or more frames were written after the state than
	// the record keeps tags of). Not a yes: the caller must not accept it
	// silently.
	DescentUnknown Descent = iota
	// Descends: the file's history holds the state.
	Descends
	// Diverges: the file's history went another way at or before the state.
	Diverges
)

// DescendsFrom reports whether the file, as this handle last read or wrote
// it, holds the state whose history chain after seq frames of epoch is
// chain: at its own epoch by its chain, at an earlier one by the header's
// ancestry record. A file at an earlier epoch than the state, or with fewer
// frames in it, does not hold it.
func (v *Vault) DescendsFrom(epoch, seq uint64, chain [32]byte) Descent {
	st := &v.st
	if st.hdr == nil || st.hdr.epoch < epoch {
		return Diverges
	}
	if st.hdr.epoch == epoch {
		if c, ok := v.ChainAt(epoch, seq); ok && c == chain {
			return Descends
		}
		return Diverges
	}
	as := st.hdr.ancestry
	if len(as) == 0 || as[0].epoch != st.hdr.epoch-1 {
		return DescentUnknown // no record, or not this epoch's (a writer bug)
	}
	for _, a := range as {
		if a.epoch != epoch {
			continue
		}
		first := a.seq - uint64(len(a.tags))
		switch {
		case seq > a.seq:
			return Diverges // the copy had fewer frames of that epoch than were seen
		case seq < first:
			return DescentUnknown
		}
		c := chain
		for _, t := range a.tags[seq-first:] {
			c = chainStep(c, t[:])
		}
		if c == a.chain {
			return Descends
		}
		return Diverges
	}
	return DescentUnknown
}
