package ann

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDrainSortedPopsInOrder: drainSorted returns the result heap's
// candidates in the order popping it gives, closest first, also among
// equal distances (ordered by id), and leaves the heap empty.
func TestDrainSortedPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	for trial := range 200 {
		n := rng.IntN(900)
		var s searchScratch
		var ref maxHeap
		ids := rng.Perm(4 * (n + 1))
		for i := range n {
			// Few distinct distances, so ties are common.
			c := cand{dist: float32(rng.IntN(1+trial%20)) / 8, id: uint32(ids[i])}
			s.top.push(c)
			ref.push(c)
		}
		want := make([]cand, len(ref))
		for i := len(want) - 1; i >= 0; i-- {
			want[i] = ref.pop()
		}
		got := s.drainSorted()
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d candidates): drainSorted %v, popping %v", trial, n, got, want)
		}
		if len(s.top) != 0 {
			t.Fatalf("trial %d: %d candidates left in the heap", trial, len(s.top))
		}
	}
}
