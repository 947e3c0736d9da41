package search

import (
	"math"
	"time"
)

// docTable is the engine's metadata of every indexed record (DocMeta),
// as columns indexed by doc number: no map of pointers to per-record
// structs, no string per record, nothing in it the garbage collector has
// to walk record by record. Namespaces are numbers into a small table.
// The vault numbers its records densely, so the columns are about as long
// as the records are many; a doc number far beyond them (a caller that
// numbers sparsely) is kept in far instead of stretching every column.
// At 100,000 records the columns are 2.9 MB where the map and its structs
// were 9.9 MB.
type docTable struct {
	seq  []uint64
	imp  []float64
	aff  []int64  // Affirmed as Unix nanoseconds; docNoTime: zero, docFarTime: in farTime
	ns   []uint32 // namespace number + 1; 0: no record under this doc
	flag []uint8
	n    int // records held, far ones included

	names   []string
	nameNum map[string]uint32
	// far holds the records whose doc is beyond the columns' reach;
	// farTime the Affirmed times Unix nanoseconds cannot hold.
	far     map[uint32]DocMeta
	farTime map[uint32]time.Time
}

// Column values and flag bits.
const (
	docNoTime  = math.MinInt64
	docFarTime = math.MinInt64 + 1

	docOpinion   = 1 << 0
	docReference = 1 << 1
)

// reach is how far past the records held a doc number may stretch the
// columns.
func (t *docTable) reach() int { return max(1<<16, 2*t.n) }

// has reports whether a record is held under doc.
func (t *docTable) has(doc uint32) bool {
	if int64(doc) < int64(len(t.ns)) {
		return t.ns[doc] != 0
	}
	_, ok := t.far[doc]
	return ok
}

// get is the metadata of doc.
func (t *docTable) get(doc uint32) (DocMeta, bool) {
	if int64(doc) >= int64(len(t.ns)) {
		m, ok := t.far[doc]
		return m, ok
	}
	ns := t.ns[doc]
	if ns == 0 {
		return DocMeta{}, false
	}
	m := DocMeta{Namespace: t.names[ns-1], Seq: t.seq[doc], Importance: t.imp[doc],
		Opinion: t.flag[doc]&docOpinion != 0, Reference: t.flag[doc]&docReference != 0}
	switch a := t.aff[doc]; a {
	case docNoTime:
	case docFarTime:
		m.Affirmed = t.farTime[doc]
	default:
		m.Affirmed = time.Unix(0, a).UTC()
	}
	return m, true
}

// docState is what a search reads of a record: its metadata.
type docState struct {
	meta DocMeta
}

// state is doc's metadata for a search (the zero value when doc holds
// none).
func (t *docTable) state(doc uint32) docState {
	m, _ := t.get(doc)
	return docState{meta: m}
}

// seqOf is doc's Seq (doc is held).
func (t *docTable) seqOf(doc uint32) uint64 {
	if int64(doc) < int64(len(t.seq)) {
		return t.seq[doc]
	}
	return t.far[doc].Seq
}

// set holds m under doc, replacing what was there.
func (t *docTable) set(doc uint32, m DocMeta) {
	if !t.has(doc) {
		t.n++
	}
	if int64(doc) >= int64(len(t.ns)) {
		if int64(doc) >= int64(len(t.ns))+int64(t.reach()) {
			if t.far == nil {
				t.far = map[uint32]DocMeta{}
			}
			t.far[doc] = m
			return
		}
		t.extend(int(doc) + 1)
	}
	t.seq[doc], t.imp[doc], t.ns[doc] = m.Seq, m.Importance, t.name(m.Namespace)+1
	var f uint8
	if m.Opinion {
		f |= docOpinion
	}
	if m.Reference {
		f |= docReference
	}
	t.flag[doc] = f
	delete(t.farTime, doc)
	switch {
	case m.Affirmed.IsZero():
		t.aff[doc] = docNoTime
	case nanosHold(m.Affirmed):
		t.aff[doc] = m.Affirmed.UnixNano()
	default:
		if t.farTime == nil {
			t.farTime = map[uint32]time.Time{}
		}
		t.aff[doc], t.farTime[doc] = docFarTime, m.Affirmed
	}
}

// nanosHold reports whether Unix nanoseconds hold t exactly, leaving the
// two values the column keeps for itself.
func nanosHold(t time.Time) bool {
	// 1678-01-01 to 2261-12-31: well inside int64 nanoseconds.
	y := t.Year()
	return y > 1678 && y < 2262
}

// extend makes the columns n long, growing them by at least a quarter.
func (t *docTable) extend(n int) {
	if n <= cap(t.ns) {
		t.seq, t.imp, t.aff, t.ns, t.flag = t.seq[:n], t.imp[:n], t.aff[:n], t.ns[:n], t.flag[:n]
		return
	}
	c := max(n, cap(t.ns)+cap(t.ns)/4, 64)
	t.seq = append(make([]uint64, 0, c), t.seq...)[:n]
	t.imp = append(make([]float64, 0, c), t.imp...)[:n]
	t.aff = append(make([]int64, 0, c), t.aff...)[:n]
	t.ns = append(make([]uint32, 0, c), t.ns...)[:n]
	t.flag = append(make([]uint8, 0, c), t.flag...)[:n]
}

// del drops doc.
func (t *docTable) del(doc uint32) {
	if !t.has(doc) {
		return
	}
	t.n--
	if int64(doc) >= int64(len(t.ns)) {
		delete(t.far, doc)
		return
	}
	t.ns[doc] = 0
	delete(t.farTime, doc)
}

// name numbers a namespace.
func (t *docTable) name(ns string) uint32 {
	if n, ok := t.nameNum[ns]; ok {
		return n
	}
	if t.nameNum == nil {
		t.nameNum = map[string]uint32{}
	}
	n := uint32(len(t.names))
	t.nameNum[ns] = n
	t.names = append(t.names, ns)
	return n
}

// each calls fn with every doc held, the columns' in ascending order, then
// the far ones in no order.
func (t *docTable) each(fn func(doc uint32)) {
	for doc, ns := range t.ns {
		if ns != 0 {
			fn(uint32(doc))
		}
	}
	for doc := range t.far {
		fn(doc)
	}
}
