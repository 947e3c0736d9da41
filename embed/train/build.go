// Package train builds the bundled static embedding model from the corpus
// that scripts/model-corpus.sh fetches: PPMI co-occurrence, randomised SVD,
// retrofitting to synonym sets, SIF pooling weights with the common
// component removed, fastText-style subword buckets, int8 quantisation.
// Every step is deterministic: fixed seeds, fixed source order, and
// parallel loops whose outputs are written by exactly one goroutine.
//
// See embed/MODEL.md for the method and the sources.
package train

import (
	"math"
	"sort"
	"time"

	"github.com/compartment/compartment/embed"
)

// Config holds every knob of a build; [DefaultConfig] is the shipped model.
type Config struct {
	Cache string // corpus cache directory (holds pkg/)

	VocabSize      int   // words in the model
	SpokenShare    int   // of which at most this many chosen by spoken frequency
	MinSpoken      int64 // corpus count a spoken word needs to be chosen
	MinCount       int64 // corpus count any other word needs
	Contexts       int   // most frequent words used as contexts
	Window         int   // co-occurrence window, each side
	EverydayRepeat int   // times each document of an everyday source is counted
	Alpha          float64

	Dim        int
	Oversample int
	PowerIters int
	EigPower   float64 // word vector = U·Σ^EigPower
	Seed       uint64

	RetrofitAlpha, RetrofitBeta float64
	RetrofitIters               int
	HypernymWeight              float64 // weight of WordNet hypernym links, 0 = none
	HypernymDepth               int     // ancestor levels linked, the weight halving per level
	RelatedWeight               float64 // weight of derivational and similar-to links
	AcronymWeight               float64 // pull of an acronym towards its expansion's words

	SIFa             float64 // pooling weight a/(a+p(w))
	ConfCount        float64 // words seen fewer times in the corpus weigh count/ConfCount as much
	OOVWeight        float64
	CommonComponents int // principal components of sentence vectors removed

	Buckets, MinN, MaxN int
}

// DefaultConfig returns the configuration of the shipped model.
func DefaultConfig(cache string) Config {
	return Config{
		Cache:     cache,
		VocabSize: 54000, SpokenShare: 30000, MinSpoken: 2, MinCount: 5,
		Contexts: 20000, Window: 8, Alpha: 0.75, EverydayRepeat: 1,
		Dim: 256, Oversample: 24, PowerIters: 2, EigPower: 0, Seed: 20261130,
		RetrofitAlpha: 1, RetrofitBeta: 1, RetrofitIters: 10,
		HypernymWeight: 0.5, HypernymDepth: 2, RelatedWeight: 0.5, AcronymWeight: 1,
		SIFa: 1e-4, ConfCount: 0, OOVWeight: 0.2, CommonComponents: 1,
		Buckets: 2048, MinN: 3, MaxN: 5,
	}
}

// Build runs the whole pipeline and returns the model file's content.
func Build(cfg Config, logf func(string, ...any)) (*embed.StaticModelData, error) {
	base, err := buildBase(cfg, logf)
	if err != nil {
		return nil, err
	}
	return finish(cfg, base, logf)
}

// base is the expensive first half of a build: the corpus, the vocabulary
// and the SVD word vectors. Developers tuning the second half can keep it
// (see [BuildCached]).
type base struct {
	Stream *tokenStream
	Vocab  *vocab
	Spoken map[string]float64
	U      dense     // left singular vectors of the PPMI matrix
	Sigma  []float64 // singular values
}

func buildBase(cfg Config, logf func(string, ...any)) (*base, error) {
	start := time.Now()
	step := func(what string) { logf("%-28s %6.1fs", what, time.Since(start).Seconds()) }
	ts, err := readCorpus(cfg.Cache, cfg.EverydayRepeat, logf)
	if err != nil {
		return nil, err
	}
	step("corpus read")
	spoken, err := spokenFrequencies(cfg.Cache)
	if err != nil {
		return nil, err
	}
	v := chooseVocab(ts, spoken, cfg.VocabSize, cfg.SpokenShare, cfg.MinSpoken, cfg.MinCount)
	logf("vocabulary %d words, corpus %d tokens", len(v.words), len(ts.ids))
	m := ppmi(cooccurrence(ts, v, min(cfg.Contexts, len(v.words)), cfg.Window), cfg.Alpha)
	step("ppmi")
	logf("ppmi %d × %d, %d non-zero", m.rows, m.cols, len(m.val))
	u, sigma := randomizedSVD(m, cfg.Dim, cfg.Oversample, cfg.PowerIters, cfg.Seed)
	step("svd")
	return &base{Stream: ts, Vocab: v, Spoken: spoken, U: u, Sigma: sigma}, nil
}

// finish retrofits, weights, removes the common component, fits the
// subword buckets and quantises.
func finish(cfg Config, b *base, logf func(string, ...any)) (*embed.StaticModelData, error) {
	start := time.Now()
	step := func(what string) { logf("%-28s %6.1fs", what, time.Since(start).Seconds()) }
	v := b.Vocab
	vecs := scaleColumns(b.U, b.Sigma, cfg.EigPower)
	index := make(map[string]int32, len(v.words))
	for i, w := range v.words {
		index[w] = int32(i)
	}
	normalizeRows(vecs)
	lx, err := buildLexicon(cfg, v, index)
	if err != nil {
		return nil, err
	}
	vecs = retrofit(vecs, lx, cfg.RetrofitAlpha, cfg.RetrofitBeta, cfg.RetrofitIters)
	normalizeRows(vecs)
	step("retrofit")
	weights := sifWeights(v, b.Spoken, cfg.SIFa, cfg.ConfCount)
	removeCommon(vecs, sampleSentences(b.Stream, v, weights, vecs, 40000), cfg.CommonComponents)
	step("common component")
	buckets := subwordBuckets(v.words, vecs, cfg.Buckets, cfg.MinN, cfg.MaxN)
	step("subwords")
	return quantize(cfg, v.words, vecs, weights, buckets), nil
}

// scaleColumns returns u·Σ^power: word vectors from the SVD, with the
// eigenvalue weighting of Levy, Goldberg and Dagan (2015).
func scaleColumns(u dense, sigma []float64, power float64) dense {
	out := newDense(u.r, u.c)
	for i := 0; i < u.r; i++ {
		for j, x := range u.row(i) {
			out.a[i*u.c+j] = x * math.Pow(sigma[j], power)
		}
	}
	return out
}

func normalizeRows(d dense) {
	for i := 0; i < d.r; i++ {
		normalizeVec(d.row(i))
	}
}

// sifWeights gives each word the smooth inverse frequency weight a/(a+p(w))
// of Arora, Liang and Ma (2017). p(w) is the spoken frequency when SUBTLEX
// has the word (user memories read like speech, not like a dictionary),
// else the corpus frequency. A word the corpus has seen fewer than conf
// times has a vector built on little evidence, so it weighs proportionally
// less.
func sifWeights(v *vocab, spoken map[string]float64, a, conf float64) []float64 {
	var total float64
	for _, c := range spoken {
		total += c
	}
	w := make([]float64, len(v.words))
	for i, word := range v.words {
		p := v.prob[i]
		if c, ok := spoken[word]; ok && total > 0 {
			p = c / total
		}
		w[i] = a / (a + p)
		if c := float64(v.counts[i]); c < conf {
			w[i] *= c / conf
		}
	}
	return w
}

// sampleSentences pools up to n corpus documents (spread evenly over the
// stream) into SIF sentence vectors, the sample the common component is
// estimated from.
func sampleSentences(ts *tokenStream, v *vocab, weights []float64, vecs dense, n int) dense {
	var docs [][2]int
	start := 0
	for i, id := range ts.ids {
		if id == docBreak {
			if i-start >= 4 {
				docs = append(docs, [2]int{start, i})
			}
			start = i + 1
		}
	}
	stride := max(1, len(docs)/n)
	out := newDense(0, vecs.c)
	for k := 0; k < len(docs); k += stride {
		s := make([]float64, vecs.c)
		for _, id := range ts.ids[docs[k][0]:docs[k][1]] {
			if w := v.fromID[id]; w >= 0 {
				axpy(weights[w], vecs.row(int(w)), s)
			}
		}
		out.a = append(out.a, s...)
		out.r++
	}
	return out
}

// removeCommon removes from every word vector the top principal directions
// of the sample's sentence vectors. Removing them from each word is the same
// as removing them from every weighted sum of words, so the encoder needs
// no extra step.
func removeCommon(vecs, sample dense, k int) {
	for c := 0; c < k; c++ {
		u := topDirection(sample)
		for _, d := range []dense{vecs, sample} {
			for i := 0; i < d.r; i++ {
				r := d.row(i)
				axpy(-dot(r, u), u, r)
			}
		}
	}
}

// topDirection returns the first right singular vector of d (uncentred, as
// in SIF), by power iteration on dᵀd from a fixed start.
func topDirection(d dense) []float64 {
	g := newDense(d.c, d.c)
	for i := 0; i < d.r; i++ {
		r := d.row(i)
		for j, x := range r {
			if x != 0 {
				axpy(x, r, g.row(j))
			}
		}
	}
	u := make([]float64, d.c)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(d.c))
	}
	for it := 0; it < 300; it++ {
		next := make([]float64, d.c)
		for j := range next {
			next[j] = dot(g.row(j), u)
		}
		normalizeVec(next)
		u = next
	}
	return u
}

// subwordBuckets gives each n-gram bucket the mean of the vectors of the
// vocabulary words containing one of its n-grams, so an unknown word (a
// typo, an inflection, an identifier) lands near the words it shares
// pieces with.
func subwordBuckets(words []string, vecs dense, buckets, minN, maxN int) dense {
	out := newDense(buckets, vecs.c)
	n := make([]float64, buckets)
	for i, w := range words {
		embed.StaticNgramBuckets(w, minN, maxN, buckets, func(b int) {
			axpy(1, vecs.row(i), out.row(b))
			n[b]++
		})
	}
	for b := 0; b < buckets; b++ {
		if n[b] > 0 {
			r := out.row(b)
			for j := range r {
				r[j] /= n[b]
			}
		}
	}
	return out
}

// quantize stores each row as int8 with its own scale (max |x| ↦ 127) and
// sorts the words into the file's byte order.
func quantize(cfg Config, words []string, vecs dense, weights []float64, buckets dense) *embed.StaticModelData {
	d := &embed.StaticModelData{
		Dim: vecs.c, MinN: cfg.MinN, MaxN: cfg.MaxN, OOVWeight: float32(cfg.OOVWeight),
	}
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return words[order[a]] < words[order[b]] })
	for _, i := range order {
		d.Words = append(d.Words, words[i])
		q, scale := quantizeRow(vecs.row(i))
		d.WordVecs = append(d.WordVecs, q...)
		d.WordCoef = append(d.WordCoef, float32(weights[i]*scale))
	}
	for b := 0; b < buckets.r; b++ {
		q, scale := quantizeRow(buckets.row(b))
		d.BucketVecs = append(d.BucketVecs, q...)
		d.BucketScale = append(d.BucketScale, float32(scale))
	}
	return d
}

func quantizeRow(r []float64) ([]int8, float64) {
	var m float64
	for _, x := range r {
		m = math.Max(m, math.Abs(x))
	}
	q := make([]int8, len(r))
	if m == 0 {
		return q, 0
	}
	scale := m / 127
	for j, x := range r {
		q[j] = int8(math.Round(x / scale))
	}
	return q, scale
}
