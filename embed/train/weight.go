package train

import (
	"fmt"
	"math"
	"strings"
)

// The semantic weight w_vec of a static model (embed.Calibration's
// SemanticWeight; the literal channel weighs 1 − w_vec) is fitted on the
// held-back pairs as a small vault: every pair's long side is a record,
// every short side a query run through the product's own ranking (both
// channels, the model's fitted cosine bounds, the reliability weight),
// and w_vec is the weight on the grid 0.05, 0.10, …, 0.95 at which the
// queries find their own long side highest on average, by mean reciprocal
// rank in the top 10 (ties: more found first, then the weight nearer the
// spec's 0.75). MRR rather than hit@1, because a search answers with the
// few best records, not one, and because near its peak the share found
// first is flat to within a handful of pairs, so its argmax wanders with
// the mix of pairs the miners hold back. A
// bag-of-words model's cosine sees which words a text shares with the
// query but not which of them matter, so where the literal channel
// already tells the records apart the fit gives it the larger share.
//
// Only pairs whose short side reads like a question or a statement (at
// least [minWeightQueryWords] words) take part. The weight is for the
// questions people and agents ask of their memories; a one- or two-word
// short side (a package name against its synopsis, a lemma against its
// definition) is a lookup of a name, which the literal channel settles
// before any weight matters, and how many of those the miners happen to
// hold back would otherwise move the weight.
const (
	weightStep          = 0.05
	specWeight          = 0.75
	minWeightQueryWords = 3
)

// WeightPairs returns the pairs of held the semantic weight is fitted on:
// those whose short side has at least [minWeightQueryWords] words.
func WeightPairs(held []Pair) []Pair {
	var out []Pair
	for _, p := range held {
		if len(strings.Fields(p.A)) >= minWeightQueryWords {
			out = append(out, p)
		}
	}
	return out
}

// RankAnswers ranks the held-back pairs at semantic weight w: for each
// pair, the 1-based rank of its own long side among all long sides for
// its short side as the query (0: not returned). The caller runs the
// product's search (embed/train cannot import it).
type RankAnswers func(w float64) ([]int, error)

// WeightPoint is one weight of the fit and how the ranking did with it.
type WeightPoint struct {
	Weight, HitAt1, MRR float64
}

// FitSemanticWeight fits w_vec (see above) and returns it with the whole
// curve, for the build log and MODEL.md.
func FitSemanticWeight(rankAt RankAnswers) (float64, []WeightPoint, error) {
	var curve []WeightPoint
	best := -1
	for i := 1; float64(i)*weightStep < 1-1e-9; i++ {
		w := math.Round(float64(i)*weightStep*100) / 100
		ranks, err := rankAt(w)
		if err != nil {
			return 0, nil, fmt.Errorf("train: semantic weight %g: %w", w, err)
		}
		if len(ranks) == 0 {
			return 0, nil, fmt.Errorf("train: semantic weight: no pairs")
		}
		pt := WeightPoint{Weight: w}
		for _, r := range ranks {
			if r == 1 {
				pt.HitAt1++
			}
			if r > 0 {
				pt.MRR += 1 / float64(r)
			}
		}
		pt.HitAt1 /= float64(len(ranks))
		pt.MRR /= float64(len(ranks))
		curve = append(curve, pt)
		if best < 0 || better(pt, curve[best]) {
			best = len(curve) - 1
		}
	}
	return curve[best].Weight, curve, nil
}

// better orders fit points: a higher MRR@10, then more answers first,
// then the weight nearer the spec's.
func better(a, b WeightPoint) bool {
	if a.MRR != b.MRR {
		return a.MRR > b.MRR
	}
	if a.HitAt1 != b.HitAt1 {
		return a.HitAt1 > b.HitAt1
	}
	return math.Abs(a.Weight-specWeight) < math.Abs(b.Weight-specWeight)
}
