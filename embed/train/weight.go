package train

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// HeldBackPairs returns the mined pairs [TrainContrastive] keeps out of
// training under cfg (the same mining, shuffle and seed), so that a
// model's calibration can be refitted without training it again. No
// static model before v2 trained on any mined pair, so for v1 they are
// as unseen as for v2.
func HeldBackPairs(cfg ContrastiveConfig, logf func(string, ...any)) ([]Pair, error) {
	pairs, err := minePairs(cfg.Cache, logf)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if len(pairs) < 2*cfg.HoldBack {
		return nil, fmt.Errorf("train: only %d pairs mined", len(pairs))
	}
	return pairs[:cfg.HoldBack], nil
}

// The semantic weight w_vec of a static model (embed.Calibration's
// SemanticWeight; the literal channel weighs 1 − w_vec) is fitted on the
// held-back pairs as a small vault: every pair's long side is a record,
// every short side a query run through the product's own ranking (both
// channels, the model's fitted cosine bounds, the reliability weight),
// and w_vec is the weight on the grid 0.05, 0.10, …, 0.95 at which the
// most queries find their own long side first (ties: the higher mean
// reciprocal rank, then the weight nearer the spec's 0.75). A
// bag-of-words model's cosine sees which words a text shares with the
// query but not which of them matter, so where the literal channel
// already tells the records apart the fit gives it the larger share.
const (
	weightStep = 0.05
	specWeight = 0.75
)

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

// better orders fit points: more answers first, then a higher MRR, then
// the weight nearer the spec's.
func better(a, b WeightPoint) bool {
	if a.HitAt1 != b.HitAt1 {
		return a.HitAt1 > b.HitAt1
	}
	if a.MRR != b.MRR {
		return a.MRR > b.MRR
	}
	return math.Abs(a.Weight-specWeight) < math.Abs(b.Weight-specWeight)
}
