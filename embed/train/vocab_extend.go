package train

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/compartment/compartment/embed"
)

// extendVocabulary adds to the v1 table the words the training pairs use at
// least minCount times that v1 does not know (product and project names,
// technical terms: "postgres", "kubernetes", "webhook"), at most max of
// them, most frequent first. A word with a digit stays out: it is an
// identifier unit of its own (FORMAT.md section 6), never a learned vector.
// A new word starts where the encoder put it before, the mean of its
// character n-gram buckets, scaled to weigh like the median word (the
// bucket mean of v1 weighs less, as a guess), and training then moves it
// like any other word. The result's words stay in byte order.
func extendVocabulary(init *embed.StaticModelData, pairs []Pair, minCount, maxWords int, weightQ float64) (*embed.StaticModelData, []string) {
	if maxWords <= 0 {
		return init, nil
	}
	known := make(map[string]bool, len(init.Words))
	for _, w := range init.Words {
		known[w] = true
	}
	counts := map[string]int{}
	for _, p := range pairs {
		for _, text := range []string{p.A, p.B} {
			for _, w := range embed.StaticWords(text) {
				if !known[w] && newWordCandidate(w) {
					counts[w]++
				}
			}
		}
	}
	var cands []string
	for w, c := range counts {
		if c >= minCount {
			cands = append(cands, w)
		}
	}
	slices.SortFunc(cands, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	if len(cands) > maxWords {
		cands = cands[:maxWords]
	}
	if len(cands) == 0 {
		return init, nil
	}
	// The median word's weight: the norm of coef·row over v1's words.
	norms := make([]float64, len(init.Words))
	for i := range init.Words {
		var ss float64
		for _, q := range init.WordVecs[i*init.Dim : (i+1)*init.Dim] {
			ss += float64(q) * float64(q)
		}
		norms[i] = float64(init.WordCoef[i]) * math.Sqrt(ss)
	}
	slices.Sort(norms)
	weight := Quantile(norms, weightQ)

	rows := make(map[string][]float64, len(cands))
	for _, w := range cands {
		r := bucketMean(init, w)
		n := math.Sqrt(dot(r, r))
		if n == 0 {
			continue
		}
		for j := range r {
			r[j] *= weight / n
		}
		rows[w] = r
	}
	words := slices.Concat(init.Words, nil)
	for w := range rows {
		words = append(words, w)
	}
	slices.Sort(words)
	d := *init
	d.Words = words
	d.WordCoef = make([]float32, len(words))
	d.WordVecs = make([]int8, len(words)*init.Dim)
	old := 0
	var added []string
	for i, w := range words {
		if r, ok := rows[w]; ok {
			q, scale := quantizeRow(r)
			copy(d.WordVecs[i*init.Dim:], q)
			d.WordCoef[i] = float32(scale)
			added = append(added, w)
			continue
		}
		copy(d.WordVecs[i*init.Dim:(i+1)*init.Dim], init.WordVecs[old*init.Dim:(old+1)*init.Dim])
		d.WordCoef[i] = init.WordCoef[old]
		old++
	}
	return &d, added
}

// newWordCandidate: letters only, at least three of them.
func newWordCandidate(w string) bool {
	n := 0
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	return n >= 3
}

// bucketMean is what the encoder adds for a word outside the vocabulary:
// the mean of its n-gram bucket vectors (at most 64 grams, as the encoder).
func bucketMean(d *embed.StaticModelData, w string) []float64 {
	r := make([]float64, d.Dim)
	buckets := len(d.BucketScale)
	var grams []int
	embed.StaticNgramBuckets(w, d.MinN, d.MaxN, buckets, func(b int) {
		if len(grams) < 64 {
			grams = append(grams, b)
		}
	})
	for _, b := range grams {
		row := d.BucketVecs[b*d.Dim : (b+1)*d.Dim]
		for j := range r {
			r[j] += float64(d.BucketScale[b]) * float64(row[j]) / float64(len(grams))
		}
	}
	return r
}
