package fts

import (
	"maps"
	"slices"
)

// docTable maps documents to slots. The vault numbers its records densely
// from 0, so the table is an array indexed by document (4 bytes a record,
// where a map took about 40 and a hash a lookup); a document number far
// past the others (the numbers are the caller's to choose) goes to a map
// instead, so one huge number cannot make the array huge.
type docTable struct {
	dense  []uint32          // by document: its slot + 1, or 0 when absent
	sparse map[uint32]uint32 // documents ≥ len(dense) → slot
	n      int               // documents held
}

// denseLimit is how far past its length (and the count of documents) the
// array grows to hold a document rather than send it to the map.
func (t *docTable) denseLimit() int {
	return 2*max(len(t.dense), t.n) + 1024
}

func (t *docTable) get(doc uint32) (uint32, bool) {
	if int64(doc) < int64(len(t.dense)) {
		s := t.dense[doc]
		return s - 1, s != 0
	}
	s, ok := t.sparse[doc]
	return s, ok
}

// set maps doc, which must be absent, to slot s.
func (t *docTable) set(doc, s uint32) {
	t.n++
	if int64(doc) >= int64(len(t.dense)) && int64(doc) < int64(t.denseLimit()) {
		t.grow(int(doc) + 1)
	}
	if int64(doc) < int64(len(t.dense)) {
		t.dense[doc] = s + 1
		return
	}
	if t.sparse == nil {
		t.sparse = map[uint32]uint32{}
	}
	t.sparse[doc] = s
}

// grow makes the array at least n long (with room to spare), moving the
// map's documents it now covers into it.
func (t *docTable) grow(n int) {
	old := len(t.dense)
	t.dense = slices.Grow(t.dense, max(n, old+old/4+64)-old)
	t.dense = t.dense[:cap(t.dense)]
	clear(t.dense[old:])
	for doc, s := range t.sparse {
		if int64(doc) < int64(len(t.dense)) {
			t.dense[doc] = s + 1
			delete(t.sparse, doc)
		}
	}
}

func (t *docTable) del(doc uint32) {
	if int64(doc) < int64(len(t.dense)) {
		if t.dense[doc] != 0 {
			t.dense[doc] = 0
			t.n--
		}
		return
	}
	if _, ok := t.sparse[doc]; ok {
		delete(t.sparse, doc)
		t.n--
	}
}

// appendDocs appends every document held, ascending, to out.
func (t *docTable) appendDocs(out []uint32) []uint32 {
	for doc, s := range t.dense {
		if s != 0 {
			out = append(out, uint32(doc))
		}
	}
	// Every document in the map lies past the array.
	return append(out, slices.Sorted(maps.Keys(t.sparse))...)
}
