package search

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestDocTableAnswersAsAMap: the columns answer like a map of DocMeta
// through sets, replacements and deletions, doc numbers near and far,
// Affirmed times zero, ordinary, and beyond what nanoseconds hold; each
// visits every doc once, the columns' in ascending order.
func TestDocTableAnswersAsAMap(t *testing.T) {
	// Values any width (every column wide from the start), values that
	// fit the narrow columns throughout, and narrow values until halfway
	// (each column widened with values in it).
	for _, narrowUntil := range []int{0, 30000, 15000} {
		tab := docTableAsAMap(t, narrowUntil)
		narrow := tab.seq64 == nil && tab.imp64 == nil && tab.aff == nil
		if narrow != (narrowUntil == 30000) {
			t.Errorf("narrow until %d: columns narrow %v (seq64 %v, imp64 %v, aff %v)", narrowUntil, narrow, tab.seq64 != nil, tab.imp64 != nil, tab.aff != nil)
		}
	}
}

func docTableAsAMap(t *testing.T, narrowUntil int) *docTable {
	var tab docTable
	want := map[uint32]DocMeta{}
	r := rand.New(rand.NewPCG(7, 8))
	base := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	times := []time.Time{{}, base, base.Add(-90 * 24 * time.Hour), time.Date(1200, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(3000, 5, 5, 5, 5, 5, 5, time.UTC), time.Unix(0, 0).UTC()}
	for i := 0; i < 30000; i++ {
		doc := uint32(r.IntN(5000))
		switch r.IntN(50) {
		case 0:
			doc = uint32(1<<30 + r.IntN(10)) // far beyond the columns
		case 1:
			doc = uint32(1<<32 - 1)
		}
		if r.IntN(4) == 0 {
			tab.del(doc)
			delete(want, doc)
			continue
		}
		m := DocMeta{Namespace: []string{"main", "work/x", "", "packs/ref"}[r.IntN(4)], Seq: r.Uint64(),
			Importance: r.Float64(), Opinion: r.IntN(2) == 0, Reference: r.IntN(3) == 0, Affirmed: times[r.IntN(len(times))]}
		if i < narrowUntil {
			m.Seq, m.Importance, m.Affirmed = uint64(r.Uint32()), []float64{0.5, 0.2, 0.8, 1, 0}[r.IntN(5)], time.Time{}
		}
		tab.set(doc, m)
		want[doc] = m
	}
	if tab.n != len(want) {
		t.Fatalf("holds %d, want %d", tab.n, len(want))
	}
	for doc, w := range want {
		got, ok := tab.get(doc)
		if !ok || !got.Affirmed.Equal(w.Affirmed) || got.Affirmed.IsZero() != w.Affirmed.IsZero() {
			t.Fatalf("doc %d: %+v, want %+v", doc, got, w)
		}
		got.Affirmed = w.Affirmed
		if !reflect.DeepEqual(got, w) || !tab.has(doc) || tab.seqOf(doc) != w.Seq || tab.state(doc).meta.Seq != w.Seq {
			t.Fatalf("doc %d: %+v, want %+v", doc, got, w)
		}
	}
	for _, doc := range []uint32{5000, 1<<30 + 11, 1 << 31} {
		if _, ok := tab.get(doc); ok || tab.has(doc) {
			t.Fatalf("doc %d held", doc)
		}
	}
	var near, far []uint32
	tab.each(func(doc uint32) {
		if _, ok := want[doc]; !ok {
			t.Fatalf("each visits %d, not held", doc)
		}
		if int64(doc) < int64(len(tab.ns)) {
			near = append(near, doc)
		} else {
			far = append(far, doc)
		}
	})
	if len(near)+len(far) != len(want) || !slices.IsSorted(near) || len(far) == 0 || len(tab.ns) > 5000+5000/4+64 {
		t.Fatalf("each visited %d near (sorted %v) and %d far of %d; columns %d long", len(near), slices.IsSorted(near), len(far), len(want), len(tab.ns))
	}
	return &tab
}
