package vaultfmt

// The plaintext of an item frame (payload or journal), FORMAT.md §2.6:
//
//	count u32, then count entries:
//	+----+---------+------+--------------------------+--------+------------------+
//	| op | id (16) | kind | wrapped item key (72)    | M u32  | sealed body (M)  |
//	+----+---------+------+--------------------------+--------+------------------+
//	                       '------ OpPut only: absent for OpDelete ------------'
//
// The wrapped item key is nonce(24) || XChaCha20-Poly1305(wrap subkey, item
// key) || tag(16); the sealed body is nonce(24) || XChaCha20-Poly1305(item
// key, body) || tag(16).
//
// A derived item of a file whose header says they are stored plain
// (extension 0x8003, FORMAT.md §2.11) is a plain put, sealed only by its
// frame:
//
//	+----+---------+------+--------+-----------+
//	| 05 | id (16) | kind | L u32  | body (L)  |
//	+----+---------+------+--------+-----------+

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Entry layout constants. Part of the format: do not change.
const (
	entryHeadSize  = 1 + 16 + 1
	wrappedKeySize = nonceSize + keySize + tagSize // 72
	// MaxItemBytes is the largest item body [Vault.Append] accepts: what
	// fits one frame with its envelope.
	MaxItemBytes = maxFrameBody - sealOverhead - 4 - entryHeadSize - wrappedKeySize - 4 - sealOverhead
)

// entry is one change as stored: an item's key and body stay sealed until
// [openItem], so compaction moves them without touching the plaintext.
type entry struct {
	op         Op
	id         ID
	kind       Kind
	wrappedKey []byte // OpPut only
	sealedBody []byte // OpPut only
	plain      []byte // the opened body, when a replay opened it ahead; a stored plain put's body
	stored     bool   // a plain put (opPutPlain, op OpPut): a derived item, its body in plain, no item key
	skip       bool   // left sealed: the handler's Skipper covers it
	cover      uint32 // what the Skipper said covers it
}

// opPutPlain is the stored op of a plain put (a derived item whose frame
// is its only seal). Part of the format: do not change.
const opPutPlain Op = 5

// encodedSize is the entry's length in a frame plaintext.
func (e *entry) encodedSize() int {
	switch {
	case e.op != OpPut:
		return entryHeadSize
	case e.stored:
		return entryHeadSize + 4 + len(e.plain)
	}
	return entryHeadSize + wrappedKeySize + 4 + len(e.sealedBody)
}

// appendEntry writes e in frame-plaintext form.
func appendEntry(dst []byte, e *entry) []byte {
	if e.stored {
		dst = append(dst, byte(opPutPlain))
		dst = append(dst, e.id[:]...)
		dst = append(dst, byte(e.kind))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(e.plain)))
		return append(dst, e.plain...)
	}
	dst = append(dst, byte(e.op))
	dst = append(dst, e.id[:]...)
	dst = append(dst, byte(e.kind))
	if e.op == OpPut {
		dst = append(dst, e.wrappedKey...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(e.sealedBody)))
		dst = append(dst, e.sealedBody...)
	}
	return dst
}

// Batch markers (FORMAT.md §2.6): the first entry of each frame of a
// multi-frame append. Part of the format: do not change the values.
const (
	opBatchMore   Op = 3 // `03`: the batch continues in the next frame
	opBatchCommit Op = 4 // `04 || frames u32`: the batch ends here, frames in all
)

// batchMark is what a frame's leading marker says: nothing (a frame that
// commits itself), "more follows", or "commit the last frames frames".
type batchMark struct {
	op     Op // 0, opBatchMore or opBatchCommit
	frames uint32
}

// appendBatchMark writes m as a frame's first entry (nothing for op 0).
func appendBatchMark(dst []byte, m batchMark) []byte {
	switch m.op {
	case opBatchMore:
		dst = append(dst, byte(opBatchMore))
	case opBatchCommit:
		dst = append(dst, byte(opBatchCommit))
		dst = binary.LittleEndian.AppendUint32(dst, m.frames)
	}
	return dst
}

// batchMarkSize is the encoded size of m.
func batchMarkSize(m batchMark) int {
	switch m.op {
	case opBatchMore:
		return 1
	case opBatchCommit:
		return 5
	}
	return 0
}

// parseEntries decodes an opened item frame: its batch marker (if any)
// and its changes. The slices alias pt. The caller has authenticated pt, so
// a malformed one means a writer bug or a broken key, reported as damage
// with the reason.
func parseEntries(pt []byte) ([]entry, batchMark, error) { return parseEntriesTo(nil, pt) }

// parseEntriesTo is parseEntries appending to out[:0] (its room reused).
func parseEntriesTo(out []entry, pt []byte) ([]entry, batchMark, error) {
	var mark batchMark
	r := &reader{b: pt}
	n := r.u32()
	if r.err || n == 0 || uint64(n) > uint64(len(pt)) {
		return nil, mark, fmt.Errorf("bad entry count %d", n)
	}
	if r.off < len(pt) && (Op(pt[r.off]) == opBatchMore || Op(pt[r.off]) == opBatchCommit) {
		mark.op = Op(r.u8())
		if mark.op == opBatchCommit {
			if mark.frames = r.u32(); r.err || mark.frames < 2 {
				return nil, mark, fmt.Errorf("batch commit marker names %d frames, want at least 2", mark.frames)
			}
		}
		if n--; n == 0 {
			return nil, mark, fmt.Errorf("batch marker without a change")
		}
	}
	if want := min(int(n), (len(pt)-r.off)/entryHeadSize+1); cap(out) < want {
		out = make([]entry, 0, want)
	}
	out = out[:0]
	for i := uint32(0); i < n; i++ {
		var e entry
		e.op = Op(r.u8())
		copy(e.id[:], r.bytes(16))
		e.kind = Kind(r.u8())
		switch e.op {
		case OpPut:
			e.wrappedKey = r.bytes(wrappedKeySize)
			m := int(r.u32())
			if m < sealOverhead {
				return nil, mark, fmt.Errorf("entry %d: sealed body length %d too short", i, m)
			}
			if r.err || m > len(pt)-r.off {
				// Checked before reading: a short read allocates what it
				// was asked for.
				return nil, mark, fmt.Errorf("entry %d overruns the frame", i)
			}
			e.sealedBody = r.bytes(m)
		case opPutPlain:
			// Where it may stand is the walk's to check (openItemFrameTo).
			e.op, e.stored = OpPut, true
			l := int(r.u32())
			if r.err || l > len(pt)-r.off {
				return nil, mark, fmt.Errorf("entry %d overruns the frame", i)
			}
			e.plain = r.bytes(l)
		case OpDelete:
		default:
			return nil, mark, fmt.Errorf("entry %d: unknown op %d", i, e.op)
		}
		if r.err {
			return nil, mark, fmt.Errorf("entry %d overruns the frame", i)
		}
		out = append(out, e)
	}
	if r.off != len(pt) {
		return nil, mark, fmt.Errorf("%d stray bytes after the entries", len(pt)-r.off)
	}
	return out, mark, nil
}

// sealItem makes the stored form of a change: for OpPut, a fresh random
// item key seals the body and is itself wrapped under the wrap subkey.
func sealItem(k *keys, vaultID [16]byte, rnd io.Reader, c Change) (entry, error) {
	e := entry{op: c.Op, id: c.Item.ID, kind: c.Item.Kind}
	if c.Op == OpDelete {
		return e, nil
	}
	itemKey := make([]byte, keySize)
	defer wipe(itemKey)
	if _, err := io.ReadFull(rnd, itemKey); err != nil {
		return e, fmt.Errorf("vaultfmt: draw item key: %w", err)
	}
	var err error
	if e.wrappedKey, err = seal(nil, k.wrap[:], rnd, itemKey, aadItem(roleItemKey, vaultID, e.id, e.kind)); err != nil {
		return e, err
	}
	e.sealedBody, err = seal(nil, itemKey, rnd, c.Item.Body, aadItem(roleItemBody, vaultID, e.id, e.kind))
	return e, err
}

// openItemKey unwraps an entry's item key; the caller wipes it.
func openItemKey(k *keys, vaultID [16]byte, e *entry) ([]byte, error) {
	itemKey, err := open(k.wrap[:], e.wrappedKey, aadItem(roleItemKey, vaultID, e.id, e.kind))
	if err != nil {
		return nil, fmt.Errorf("item key: %w", err)
	}
	return itemKey, nil
}

// openItem unwraps the item key and opens the body (a plain put's body is
// the one stored).
func openItem(k *keys, vaultID [16]byte, e *entry) ([]byte, error) {
	if e.stored {
		return e.plain, nil
	}
	itemKey, err := openItemKey(k, vaultID, e)
	if err != nil {
		return nil, err
	}
	defer wipe(itemKey)
	body, err := open(itemKey, e.sealedBody, aadItem(roleItemBody, vaultID, e.id, e.kind))
	if err != nil {
		return nil, fmt.Errorf("item body: %w", err)
	}
	return body, nil
}

// openItemInPlace is [openItem] decrypting the body over its own sealed
// bytes: the body returned shares e.sealedBody's memory, which must be a
// heap buffer the caller owns (a frame's plaintext, never the file
// mapping), and the sealed body is spent. On failure the bytes are wiped.
func openItemInPlace(k *keys, vaultID [16]byte, e *entry) ([]byte, error) {
	if e.stored {
		return e.plain, nil
	}
	itemKey, err := openItemKey(k, vaultID, e)
	if err != nil {
		return nil, err
	}
	defer wipe(itemKey)
	sb := e.sealedBody
	if len(sb) < sealOverhead {
		return nil, fmt.Errorf("item body: %w", errOpen)
	}
	// The plaintext goes exactly where the ciphertext starts (the AEAD
	// allows that overlap), and no further than the sealed body.
	body, err := openTo(sb[nonceSize:nonceSize:len(sb)], itemKey, sb, aadItem(roleItemBody, vaultID, e.id, e.kind))
	if err != nil {
		return nil, fmt.Errorf("item body: %w", err)
	}
	return body, nil
}

// frameEntries builds an item frame's plaintext, led by mark when it is
// part of a multi-frame batch.
func frameEntries(es []entry, mark batchMark) []byte {
	size, count := 4+batchMarkSize(mark), len(es)
	for i := range es {
		size += es[i].encodedSize()
	}
	if mark.op != 0 {
		count++
	}
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, size), uint32(count))
	b = appendBatchMark(b, mark)
	for i := range es {
		b = appendEntry(b, &es[i])
	}
	return b
}
