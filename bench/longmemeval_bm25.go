package bench

import (
	"math"
	"slices"
	"strings"
)

// The reference retriever: LongMemEval's own "flat-bm25" (run_retrieval.py),
// which is rank_bm25's BM25Okapi over documents and a question split on
// single spaces, with no case folding or punctuation handling. Every run
// ranks the same corpora with it, so the report can say how the product
// compares with the baseline the published figures were measured with,
// on the very same questions.
const (
	refK1      = 1.5
	refB       = 0.75
	refEpsilon = 0.25 // a negative IDF becomes epsilon × the mean IDF
)

// referenceRanking ranks every document of c for question, best first,
// as the official script does: scores by BM25Okapi, then the indexes
// sorted by score ascending and reversed, so equal scores come out in
// descending document order.
func referenceRanking(c lmeCorpus, question string) []int {
	docs := make([]map[string]int, len(c.texts))
	lens := make([]float64, len(c.texts))
	df := map[string]int{}
	total := 0.0
	for i, text := range c.texts {
		words := strings.Split(text, " ")
		lens[i] = float64(len(words))
		total += lens[i]
		tf := map[string]int{}
		for _, w := range words {
			tf[w]++
		}
		for w := range tf {
			df[w]++
		}
		docs[i] = tf
	}
	n := float64(len(c.texts))
	avgLen := total / n
	idf := make(map[string]float64, len(df))
	idfSum := 0.0
	var negative []string
	for w, f := range df {
		v := math.Log(n-float64(f)+0.5) - math.Log(float64(f)+0.5)
		idf[w] = v
		idfSum += v
		if v < 0 {
			negative = append(negative, w)
		}
	}
	if len(idf) > 0 {
		eps := refEpsilon * idfSum / float64(len(idf))
		for _, w := range negative {
			idf[w] = eps
		}
	}
	scores := make([]float64, len(c.texts))
	for _, q := range strings.Split(question, " ") {
		wq := idf[q]
		for i, tf := range docs {
			f := float64(tf[q])
			scores[i] += wq * (f * (refK1 + 1) / (f + refK1*(1-refB+refB*lens[i]/avgLen)))
		}
	}
	order := make([]int, len(c.texts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] < scores[b]:
			return -1
		case scores[a] > scores[b]:
			return 1
		}
		return 0
	})
	slices.Reverse(order)
	return order
}
