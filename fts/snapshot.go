package fts

// Snapshot bytes (FORMAT.md section 5), sealed by the vault as one item:
//
//	+0  63 46 54 53   magic "cFTS"
//	+4  01            format version
//	+5  01            tokenizer version: a snapshot cut by another
//	                  tokenizer is stale, not corrupt (ErrStale)
//	+6  00 00         reserved, zero
//	+8  D             uvarint: documents, then D × { doc gap, words }
//	    T             uvarint: terms, then T × { len, text, df,
//	                  df × { document-index gap, tf } }
//
// Every count and gap is an unsigned LEB128 varint. Documents ascend by
// number; terms ascend bytewise; postings ascend by document index. A gap
// is the difference from the previous value minus one (the first is the
// value itself), so the encoding of an index is unique and a decoded
// snapshot re-encodes to the same bytes.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Part of the format: do not change.
const (
	snapshotMagic   = "cFTS"
	snapshotVersion = 1
	headerSize      = 8
	// maxSnapshotTerm bounds a stored term: MaxTermBytes before case
	// folding, which can lengthen text (ß → ss) but never fourfold.
	maxSnapshotTerm = 4 * MaxTermBytes
)

// TokenizerVersion names the tokenisation rules. Change it whenever
// [Tokens] cuts any text differently: old snapshots then report ErrStale
// and the caller rebuilds from its records.
const TokenizerVersion = 1

var (
	// ErrCorrupt: the bytes are not a snapshot this version wrote.
	ErrCorrupt = errors.New("fts: corrupt snapshot")
	// ErrStale: a valid snapshot from other tokenisation rules; rebuild
	// the index from the records instead.
	ErrStale = errors.New("fts: snapshot from another tokenizer version")
)

// MarshalBinary writes the index as a snapshot. The index must not change
// during the call.
func (x *Index) MarshalBinary() ([]byte, error) {
	order := make([]uint32, 0, len(x.docs)) // slots by ascending doc
	for _, s := range x.docs {
		order = append(order, s)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmpU32(x.slots[a].doc, x.slots[b].doc) })
	index := make([]uint32, len(x.slots)) // slot → position in order
	for i, s := range order {
		index[s] = uint32(i)
	}
	b := append([]byte(snapshotMagic), snapshotVersion, TokenizerVersion, 0, 0)
	b = binary.AppendUvarint(b, uint64(len(order)))
	prev := int64(-1)
	for _, s := range order {
		b = binary.AppendUvarint(b, uint64(int64(x.slots[s].doc)-prev-1))
		b = binary.AppendUvarint(b, uint64(x.slots[s].words))
		prev = int64(x.slots[s].doc)
	}
	ids := make([]uint32, 0, len(x.vocab))
	for _, id := range x.vocab {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, c uint32) int { return strings.Compare(x.terms[a].text, x.terms[c].text) })
	b = binary.AppendUvarint(b, uint64(len(ids)))
	type posting struct {
		index uint32
		tf    uint16
	}
	var ps []posting
	for _, id := range ids {
		t := &x.terms[id]
		b = binary.AppendUvarint(b, uint64(len(t.text)))
		b = append(b, t.text...)
		b = binary.AppendUvarint(b, uint64(len(t.slots)))
		ps = ps[:0]
		for j, s := range t.slots {
			ps = append(ps, posting{index[s], t.tfs[j]})
		}
		slices.SortFunc(ps, func(p, q posting) int { return cmpU32(p.index, q.index) })
		prev := int64(-1)
		for _, p := range ps {
			b = binary.AppendUvarint(b, uint64(int64(p.index)-prev-1))
			b = binary.AppendUvarint(b, uint64(p.tf))
			prev = int64(p.index)
		}
	}
	return b, nil
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// UnmarshalBinary replaces the index's contents with a snapshot. Damaged
// bytes give an error wrapping ErrCorrupt, a snapshot from other
// tokenisation rules one wrapping ErrStale; either way the index is left
// unchanged.
func (x *Index) UnmarshalBinary(data []byte) error {
	if len(data) < headerSize || string(data[:4]) != snapshotMagic {
		return fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	if data[4] != snapshotVersion {
		return fmt.Errorf("%w: format version %d", ErrCorrupt, data[4])
	}
	if data[6] != 0 || data[7] != 0 {
		return fmt.Errorf("%w: reserved bytes set", ErrCorrupt)
	}
	if data[5] != TokenizerVersion {
		return fmt.Errorf("%w: snapshot has %d, this build %d", ErrStale, data[5], TokenizerVersion)
	}
	y := New()
	d := decoder{b: data[headerSize:]}
	if err := y.readDocs(&d); err != nil {
		return err
	}
	if err := y.readTerms(&d); err != nil {
		return err
	}
	y.linkDocs()
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	info := make([]slotInfo, len(y.slots), cap(y.slots))
	for i, sl := range y.slots {
		info[i] = slotInfo{doc: sl.doc, words: sl.words}
	}
	*x = Index{vocab: y.vocab, terms: y.terms, docs: y.docs, slots: y.slots, info: info,
		words: y.words, grams: y.grams, prefixes: y.prefixes}
	return nil
}

func (x *Index) readDocs(d *decoder) error {
	n, err := d.count(2) // each document takes at least two bytes
	if err != nil {
		return err
	}
	// Room for a sixteenth more documents, so the stores after an open
	// append in place rather than copying every slot (roomFor in ann).
	x.slots = make([]slot, n, n+n/16+64)
	next := uint64(0) // smallest number the next document may have
	for i := range x.slots {
		gap, err := d.uvarint()
		if err != nil {
			return err
		}
		words, err := d.uvarint()
		if err != nil {
			return err
		}
		doc := next + gap
		if gap > 1<<32 || doc > 1<<32-1 || words > 1<<32-1 {
			return fmt.Errorf("%w: document %d out of range", ErrCorrupt, i)
		}
		x.slots[i] = slot{doc: uint32(doc), words: uint32(words), live: true}
		x.docs[uint32(doc)] = uint32(i)
		x.words += int64(words)
		next = doc + 1
	}
	return nil
}

func (x *Index) readTerms(d *decoder) error {
	n, err := d.count(4) // length, text, df, one posting
	if err != nil {
		return err
	}
	x.terms = make([]term, 0, n+n/16+64)
	prev := ""
	for i := range n {
		text, err := d.text()
		if err != nil {
			return err
		}
		if i > 0 && text <= prev {
			return fmt.Errorf("%w: term %d out of order", ErrCorrupt, i)
		}
		prev = text
		if err := x.readPostings(d, uint32(i), text); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) readPostings(d *decoder, id uint32, text string) error {
	df, err := d.count(2)
	if err != nil {
		return err
	}
	if df == 0 || df > len(x.slots) {
		return fmt.Errorf("%w: term %q has df %d of %d documents", ErrCorrupt, text, df, len(x.slots))
	}
	t := term{text: text, runes: utf8.RuneCountInString(text), slots: make([]uint32, df), tfs: make([]uint16, df)}
	next := uint64(0)
	for j := range df {
		gap, err := d.uvarint()
		if err != nil {
			return err
		}
		tf, err := d.uvarint()
		if err != nil {
			return err
		}
		s := next + gap
		if gap >= uint64(len(x.slots)) || s >= uint64(len(x.slots)) || tf == 0 || tf > 0xFFFF {
			return fmt.Errorf("%w: term %q posting %d out of range", ErrCorrupt, text, j)
		}
		t.slots[j], t.tfs[j] = uint32(s), uint16(tf)
		next = s + 1
	}
	x.terms = append(x.terms, t)
	x.vocab[text] = id
	x.addGrams(id, text)
	return nil
}

// linkDocs fills each document's term list from the postings, in one
// backing array (each list capped, so a later append copies it out).
func (x *Index) linkDocs() {
	count := make([]int, len(x.slots)+1)
	for _, t := range x.terms {
		for _, s := range t.slots {
			count[s+1]++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	backing := make([]uint32, count[len(x.slots)])
	fill := slices.Clone(count[:len(x.slots)])
	for id, t := range x.terms {
		for _, s := range t.slots {
			backing[fill[s]] = uint32(id)
			fill[s]++
		}
	}
	for s := range x.slots {
		x.slots[s].terms = backing[count[s]:count[s+1]:count[s+1]]
	}
}

// decoder reads varints and strings, failing with ErrCorrupt.
type decoder struct{ b []byte }

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, fmt.Errorf("%w: truncated or overlong varint", ErrCorrupt)
	}
	if n > 1 && d.b[n-1] == 0 {
		return 0, fmt.Errorf("%w: non-minimal varint", ErrCorrupt)
	}
	d.b = d.b[n:]
	return v, nil
}

// count reads a count of items taking at least minBytes each, refusing
// one the remaining bytes cannot hold (so no count makes us allocate
// more than the input justifies).
func (d *decoder) count(minBytes int) (int, error) {
	v, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if v > uint64(len(d.b)/minBytes) {
		return 0, fmt.Errorf("%w: count %d exceeds the %d bytes left", ErrCorrupt, v, len(d.b))
	}
	return int(v), nil
}

func (d *decoder) text() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n == 0 || n > maxSnapshotTerm || n > uint64(len(d.b)) {
		return "", fmt.Errorf("%w: term length %d", ErrCorrupt, n)
	}
	s := d.b[:n]
	d.b = d.b[n:]
	if !utf8.Valid(s) || bytes.ContainsAny(s, " \t\n\r") {
		return "", fmt.Errorf("%w: term is not a token", ErrCorrupt)
	}
	return string(s), nil
}
