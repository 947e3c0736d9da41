package vault

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestReplayedVectorsLiveInTheIndexOnly opens a vault and checks that its
// records gave their int8 windows to the index, that every path that
// needs them still gets them byte for byte, and that a record the index
// lets go of (superseded, retagged) keeps them in the file.
func TestReplayedVectorsLiveInTheIndexOnly(t *testing.T) {
	for _, threshold := range []int{0, 10} { // default (exact), and HNSW built in the background
		t.Run(fmt.Sprintf("hnsw_threshold=%d", threshold), func(t *testing.T) { replayedVectors(t, threshold) })
	}
}

func replayedVectors(t *testing.T, threshold int) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	if threshold > 0 {
		v.Config().Settings.HNSWThreshold = threshold
		if err := v.Config().Save(h.path); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for i := range 40 {
		ids = append(ids, h.store(v, StoreRequest{Text: fmt.Sprintf("Harbour note %d: the invoice for week %d goes to finance", i, i), Tags: []string{"harbour"}}).ID)
	}
	want := map[string][][]int8{}
	for _, id := range ids {
		r, _ := v.Get(id)
		// A stored record gives its copy to the index as a replayed one
		// does (an import of many memories held them all twice).
		if r.Vectors.I8 != nil {
			t.Fatalf("%s kept its own copy after the store", id)
		}
		i8, _ := r.Vectors.int8Windows()
		if len(i8) != 1 || len(i8[0]) == 0 {
			t.Fatalf("%s: %d windows after the store", id, len(i8))
		}
		want[id] = slices.Clone(i8)
	}
	v.Close()

	v = h.open("user")
	for _, id := range ids {
		r, _ := v.Get(id)
		if r.Vectors.I8 != nil || r.Vectors.Len() != 1 {
			t.Fatalf("%s kept its own copy after the replay (len %d)", id, r.Vectors.Len())
		}
		i8, _ := r.Vectors.int8Windows()
		if !slices.Equal(i8[0], want[id][0]) {
			t.Fatalf("%s: the index hands back other codes", id)
		}
		body := encodeRecord(r)
		back, err := decodeRecord(id, body)
		if err != nil || !slices.Equal(back.Vectors.I8[0], want[id][0]) {
			t.Fatalf("%s: re-encoding loses the vectors: %v", id, err)
		}
	}
	// Paths that let the index drop a record's windows, then reopen.
	h.store(v, StoreRequest{Text: "Harbour note 0: the invoice goes to the finance team now", Supersedes: []string{ids[0]}})
	if _, err := v.Retag(RetagOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Forget(ids[1], false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let a background graph build catch up and swap in
	hits, err := v.Search(SearchRequest{Query: "invoice for week 7 goes to finance", TopK: 3})
	if err != nil || len(hits) == 0 || hits[0].ID != ids[7] {
		t.Fatalf("search after the index keeps the vectors: %v %v", hits, err)
	}
	v.Close()
	v = h.open("user")
	for _, id := range append([]string{ids[0]}, ids[2:]...) {
		r, err := v.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		i8, _ := r.Vectors.int8Windows()
		if len(i8) != 1 || !slices.Equal(i8[0], want[id][0]) {
			t.Errorf("%s: vectors changed on disk after supersede/retag (live %v)", id, r.Live())
		}
	}
}
