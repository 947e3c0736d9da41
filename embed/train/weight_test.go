package train

import (
	"errors"
	"math"
	"testing"
)

// The fit picks the weight where most answers come first, breaks a tie by
// MRR and then by nearness to the spec's 0.75, and reports the curve.
func TestFitSemanticWeight(t *testing.T) {
	// 20 pairs; at weight w, round(20·(1 − |w − 0.35|)) of them rank first,
	// the rest second: a single peak at 0.35.
	peak := func(w float64) ([]int, error) {
		hits := int(math.Round(20 * (1 - math.Abs(w-0.35))))
		ranks := make([]int, 20)
		for i := range ranks {
			ranks[i] = 2
			if i < hits {
				ranks[i] = 1
			}
		}
		return ranks, nil
	}
	w, curve, err := FitSemanticWeight(peak)
	if err != nil {
		t.Fatal(err)
	}
	if w != 0.35 {
		t.Errorf("weight %v, want 0.35", w)
	}
	if len(curve) != 19 || curve[0].Weight != 0.05 || curve[18].Weight != 0.95 {
		t.Errorf("curve %+v, want the 19 weights 0.05 … 0.95", curve)
	}
	// A flat curve: every weight ranks alike, so the spec's weight wins.
	flat := func(float64) ([]int, error) { return []int{1, 2, 0}, nil }
	if w, _, err := FitSemanticWeight(flat); err != nil || w != 0.75 {
		t.Errorf("flat curve: %v, %v; want the spec's 0.75", w, err)
	}
	// Same hit@1, better MRR at 0.2 (the non-first answer ranks second,
	// not tenth).
	mrr := func(w float64) ([]int, error) {
		if w == 0.2 {
			return []int{1, 2}, nil
		}
		return []int{1, 10}, nil
	}
	if w, _, _ := FitSemanticWeight(mrr); w != 0.2 {
		t.Errorf("MRR: %v, want 0.2", w)
	}
	// MRR decides over hit@1: at 0.6 one more answer is first, but at 0.3
	// the others rank second instead of not at all.
	mrrFirst := func(w float64) ([]int, error) {
		switch w {
		case 0.6:
			return []int{1, 1, 0, 0}, nil
		case 0.3:
			return []int{1, 2, 2, 2}, nil
		}
		return []int{1, 0, 0, 0}, nil
	}
	if w, _, _ := FitSemanticWeight(mrrFirst); w != 0.3 {
		t.Errorf("MRR over hit@1: %v, want 0.3", w)
	}
	// Same MRR: more answers first wins.
	hits := func(w float64) ([]int, error) {
		if w == 0.4 {
			return []int{1, 0, 1, 0}, nil // MRR 0.5, hit@1 0.5
		}
		return []int{2, 2, 2, 2}, nil // MRR 0.5, hit@1 0
	}
	if w, _, _ := FitSemanticWeight(hits); w != 0.4 {
		t.Errorf("hit@1 tie-break: %v, want 0.4", w)
	}
	boom := errors.New("boom")
	if _, _, err := FitSemanticWeight(func(float64) ([]int, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing ranker: %v, want its error", err)
	}
	if _, _, err := FitSemanticWeight(func(float64) ([]int, error) { return nil, nil }); err == nil {
		t.Error("no pairs: want an error")
	}
}
