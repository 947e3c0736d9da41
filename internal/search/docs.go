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
//
// A column is as narrow as its values allow, widened (once, in place of
// the narrow one) by the first value that does not fit: Seq as u32 until
// one exceeds it; Importance as a byte into the few values a vault uses
// (a tier, a default) until there are more than 256; Affirmed (opinions
// only) absent until one is set. At 100,000 records the columns are
// 1.0 MB where they were 2.9 (and the map of structs before them 9.9).
type docTable struct {
	seq32  []uint32 // while seq64 is nil
	seq64  []uint64
	impNum []uint8 // numbers into impVal, while imp64 is nil
	impVal []float64
	imp64  []float64
	aff    []int64  // Affirmed as Unix nanoseconds; docNoTime: zero, docFarTime: in farTime; nil: all zero
	ns     []uint32 // namespace number + 1; 0: no record under this doc
	flag   []uint8
	n      int // records held, far ones included

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
	m := DocMeta{Namespace: t.names[ns-1], Seq: t.seqAt(doc), Importance: t.impAt(doc),
		Opinion: t.flag[doc]&docOpinion != 0, Reference: t.flag[doc]&docReference != 0}
	switch a := t.affAt(doc); a {
	case docNoTime:
	case docFarTime:
		m.Affirmed = t.farTime[doc]
	default:
		m.Affirmed = time.Unix(0, a).UTC()
	}
	return m, true
}

func (t *docTable) seqAt(doc uint32) uint64 {
	if t.seq64 != nil {
		return t.seq64[doc]
	}
	return uint64(t.seq32[doc])
}

func (t *docTable) impAt(doc uint32) float64 {
	if t.imp64 != nil {
		return t.imp64[doc]
	}
	return t.impVal[t.impNum[doc]]
}

func (t *docTable) affAt(doc uint32) int64 {
	if t.aff == nil {
		return docNoTime
	}
	return t.aff[doc]
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
	if int64(doc) < int64(len(t.ns)) {
		return t.seqAt(doc)
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
	t.setSeq(doc, m.Seq)
	t.setImp(doc, m.Importance)
	t.ns[doc] = t.name(m.Namespace) + 1
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
		if t.aff != nil {
			t.aff[doc] = docNoTime
		}
	case nanosHold(m.Affirmed):
		t.affColumn()[doc] = m.Affirmed.UnixNano()
	default:
		if t.farTime == nil {
			t.farTime = map[uint32]time.Time{}
		}
		t.affColumn()[doc], t.farTime[doc] = docFarTime, m.Affirmed
	}
}

// setSeq writes doc's Seq, widening the column when it does not fit.
func (t *docTable) setSeq(doc uint32, seq uint64) {
	if t.seq64 == nil && seq > math.MaxUint32 {
		t.seq64 = make([]uint64, len(t.seq32), cap(t.seq32))
		for i, v := range t.seq32 {
			t.seq64[i] = uint64(v)
		}
		t.seq32 = nil
	}
	if t.seq64 != nil {
		t.seq64[doc] = seq
	} else {
		t.seq32[doc] = uint32(seq)
	}
}

// setImp writes doc's Importance: its number among the values seen, or
// the value itself once there are more than a byte numbers.
func (t *docTable) setImp(doc uint32, imp float64) {
	if t.imp64 == nil {
		bits := math.Float64bits(imp)
		for i, v := range t.impVal {
			if math.Float64bits(v) == bits {
				t.impNum[doc] = uint8(i)
				return
			}
		}
		if len(t.impVal) < 256 {
			t.impNum[doc] = uint8(len(t.impVal))
			t.impVal = append(t.impVal, imp)
			return
		}
		t.imp64 = make([]float64, len(t.impNum), cap(t.impNum))
		for i, n := range t.impNum {
			t.imp64[i] = t.impVal[n]
		}
		t.impNum, t.impVal = nil, nil
	}
	t.imp64[doc] = imp
}

// affColumn is the Affirmed column, made (every doc's zero) when absent.
func (t *docTable) affColumn() []int64 {
	if t.aff == nil {
		t.aff = make([]int64, len(t.ns), cap(t.ns))
		for i := range t.aff {
			t.aff[i] = docNoTime
		}
	}
	return t.aff
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
	c := cap(t.ns)
	if n > c {
		c = max(n, c+c/4, 64)
	}
	from := len(t.ns)
	t.ns, t.flag = grown(t.ns, n, c), grown(t.flag, n, c)
	if t.seq64 != nil {
		t.seq64 = grown(t.seq64, n, c)
	} else {
		t.seq32 = grown(t.seq32, n, c)
	}
	if t.imp64 != nil {
		t.imp64 = grown(t.imp64, n, c)
	} else {
		t.impNum = grown(t.impNum, n, c)
	}
	if t.aff != nil {
		t.aff = grown(t.aff, n, c)
		for i := from; i < n; i++ {
			t.aff[i] = docNoTime
		}
	}
}

// grown is v made n long, in a new array of capacity c when its own is
// too small; the entries it gains are zero.
func grown[T any](v []T, n, c int) []T {
	if n <= cap(v) {
		return v[:n]
	}
	return append(make([]T, 0, c), v...)[:n]
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
