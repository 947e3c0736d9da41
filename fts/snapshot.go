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
	docs := x.docs.appendDocs(make([]uint32, 0, x.docs.n))
	index := make([]uint32, len(x.info)) // slot → position in docs
	b := append([]byte(snapshotMagic), snapshotVersion, TokenizerVersion, 0, 0)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	prev := int64(-1)
	for i, doc := range docs {
		s, _ := x.docs.get(doc)
		index[s] = uint32(i)
		b = binary.AppendUvarint(b, uint64(int64(doc)-prev-1))
		b = binary.AppendUvarint(b, uint64(x.info[s].words))
		prev = int64(doc)
	}
	ids := make([]uint32, 0, x.VocabularySize())
	for id, t := range x.terms {
		if t.text != "" { // a live term (a dropped one is zero)
			ids = append(ids, uint32(id))
		}
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
//
// The restored index holds what a query reads and little else: postings
// in two arrays and term texts in one string, shared by every term; the
// vocabulary's trigram index waits for the first query that needs it,
// and the documents' term lists for the first Delete (see [Index]).
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
	y := &Index{}
	d := decoder{b: data[headerSize:]}
	if err := y.readDocs(&d); err != nil {
		return err
	}
	if err := y.readTerms(&d); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	*x = Index{vocab: map[string]uint32{}, baseLive: y.base.len(), terms: y.terms, docs: y.docs, info: y.info,
		unlinked: uint32(len(y.info)), words: y.words,
		fresh: newFuzzyIndex(), base: y.base, gone: make([]uint64, (y.base.len()+63)/64)}
	return nil
}

func (x *Index) readDocs(d *decoder) error {
	n, err := d.count(2) // each document takes at least two bytes
	if err != nil {
		return err
	}
	// Room for a sixteenth more documents, so the stores after an open
	// append in place rather than copying every slot (roomFor in ann).
	x.info = make([]slotInfo, n, n+n/16+64)
	next := uint64(0) // smallest number the next document may have
	for i := range x.info {
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
		x.info[i] = slotInfo{doc: uint32(doc), words: uint32(words)}
		x.docs.set(uint32(doc), uint32(i))
		x.words += int64(words)
		next = doc + 1
	}
	return nil
}

// readTerms reads the vocabulary and its postings. A first pass over the
// bytes counts the postings and the text, so each goes into one array of
// the right size; the second decodes and checks them.
func (x *Index) readTerms(d *decoder) error {
	n, err := d.count(4) // length, text, df, one posting
	if err != nil {
		return err
	}
	texts, postings := scanTerms(*d, n)
	arena := make([]byte, 0, texts)
	ends := make([]uint32, n) // each term's text ends at arena[ends[i]]
	slots, tfs := make([]uint32, 0, postings), make([]uint16, 0, postings)
	x.terms = make([]term, n, n+n/16+64)
	var prev []byte
	for i := range n {
		text, err := d.text()
		if err != nil {
			return err
		}
		if i > 0 && bytes.Compare(text, prev) <= 0 {
			return fmt.Errorf("%w: term %d out of order", ErrCorrupt, i)
		}
		prev = text
		arena = append(arena, text...)
		ends[i] = uint32(len(arena))
		start := len(slots)
		if slots, tfs, err = x.readPostings(d, text, slots, tfs); err != nil {
			return err
		}
		x.terms[i] = term{slots: slots[start:len(slots):len(slots)], tfs: tfs[start:len(tfs):len(tfs)]}
	}
	x.base = newBaseVocab(string(arena), ends)
	for i := range x.terms {
		text := x.base.text(uint32(i))
		x.terms[i].text, x.terms[i].runes = text, utf8.RuneCountInString(text)
	}
	return nil
}

// scanTerms counts the text bytes and postings of n terms from d (a
// copy), stopping early at bytes that do not parse: the counts only size
// arrays (never more than the bytes can hold), and readTerms then reports
// the damage.
func scanTerms(d decoder, n int) (texts, postings int) {
	for range n {
		l, err := d.uvarint()
		if err != nil || l > uint64(len(d.b)) {
			break
		}
		d.b = d.b[l:]
		texts += int(l)
		df, err := d.uvarint()
		if err != nil || df > uint64(len(d.b)/2) {
			break
		}
		// 2·df varints follow; each ends at a byte below 0x80.
		need, i := 2*int(df), 0
		for ; need > 0 && i < len(d.b); i++ {
			if d.b[i] < 0x80 {
				need--
			}
		}
		if need > 0 {
			break
		}
		d.b = d.b[i:]
		postings += int(df)
	}
	return texts, postings
}

// readPostings appends one term's postings to slots and tfs.
func (x *Index) readPostings(d *decoder, text []byte, slots []uint32, tfs []uint16) ([]uint32, []uint16, error) {
	df, err := d.count(2)
	if err != nil {
		return nil, nil, err
	}
	if df == 0 || df > len(x.info) {
		return nil, nil, fmt.Errorf("%w: term %q has df %d of %d documents", ErrCorrupt, text, df, len(x.info))
	}
	next := uint64(0)
	for j := range df {
		var gap, tf uint64
		if b := d.b; len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 {
			// The usual posting: a one-byte gap and a one-byte tf.
			gap, tf, d.b = uint64(b[0]), uint64(b[1]), b[2:]
		} else {
			if gap, err = d.uvarint(); err != nil {
				return nil, nil, err
			}
			if tf, err = d.uvarint(); err != nil {
				return nil, nil, err
			}
		}
		s := next + gap
		if gap >= uint64(len(x.info)) || s >= uint64(len(x.info)) || tf == 0 || tf > 0xFFFF {
			return nil, nil, fmt.Errorf("%w: term %q posting %d out of range", ErrCorrupt, text, j)
		}
		slots, tfs = append(slots, uint32(s)), append(tfs, uint16(tf))
		next = s + 1
	}
	return slots, tfs, nil
}

// linkDocs fills the term lists of the restored slots (those below
// unlinked) from the postings, in one backing array (each list capped, so
// a later append copies it out). Until the first Delete of one of them
// no slot below unlinked has been freed, so each still holds its restored
// document and exactly the terms whose postings name it.
func (x *Index) linkDocs() {
	n := x.unlinked
	count := make([]int, n+1)
	for _, t := range x.terms {
		for _, s := range t.slots {
			if s < n {
				count[s+1]++
			}
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	backing := make([]uint32, count[n])
	fill := slices.Clone(count[:n])
	for id, t := range x.terms {
		for _, s := range t.slots {
			if s < n {
				backing[fill[s]] = uint32(id)
				fill[s]++
			}
		}
	}
	if len(x.slotTerms) < int(n) {
		x.setSlotTerms(n-1, nil)
	}
	for s := range n {
		x.slotTerms[s] = backing[count[s]:count[s+1]:count[s+1]]
	}
	x.unlinked = 0
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

// text returns the next term's bytes, borrowed from the input.
func (d *decoder) text() ([]byte, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	if n == 0 || n > maxSnapshotTerm || n > uint64(len(d.b)) {
		return nil, fmt.Errorf("%w: term length %d", ErrCorrupt, n)
	}
	s := d.b[:n]
	d.b = d.b[n:]
	if !utf8.Valid(s) || bytes.ContainsAny(s, " \t\n\r") {
		return nil, fmt.Errorf("%w: term is not a token", ErrCorrupt)
	}
	return s, nil
}
