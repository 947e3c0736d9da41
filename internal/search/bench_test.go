package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/compartment/compartment/ann"
)

// benchWords is a small vocabulary drawn with a Zipf law, so records share
// common words and differ in rare ones, as prose does.
type benchWords struct {
	words []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newBenchWords(seed uint64) *benchWords {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := make([]string, 30000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	return &benchWords{words: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1)), rng: rng}
}

func (b *benchWords) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = b.words[b.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// vector draws a unit vector like a real encoder's: every vector leans
// the same way (anisotropy), so unrelated texts sit near cosine 0.5.
func (b *benchWords) vector(d int) []float32 {
	v := make([]float32, d)
	var n float64
	for i := range v {
		v[i] = float32(b.rng.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	lean := float32(0.7)
	for i := range v {
		v[i] = v[i] / float32(math.Sqrt(n)) * 0.714
	}
	v[0] += lean
	return normalise(v)
}

// near returns a unit vector close to v (cosine about 0.8).
func (b *benchWords) near(v []float32) []float32 {
	out := make([]float32, len(v))
	w := b.vector(len(v))
	for i := range v {
		out[i] = v[i] + 0.6*w[i]
	}
	return normalise(out)
}

func normalise(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

var (
	benchMu      sync.Mutex
	benchEngines = map[int]*Engine{}
	benchVecs    = map[int][][]float32{}
	benchGen     *benchWords
	benchSink    int
)

// engineOf builds (once) an engine of n records of 10-60 words with one
// 384-dim window each. At 20,000 vectors the index switches to HNSW,
// building it in the background; it is waited for, so the benchmark
// measures the steady state.
func engineOf(n int) (*Engine, [][]float32, *benchWords) {
	benchMu.Lock()
	defer benchMu.Unlock()
	if benchGen == nil {
		benchGen = newBenchWords(1)
	}
	if e, ok := benchEngines[n]; ok {
		return e, benchVecs[n], benchGen
	}
	e := New(384)
	vecs := make([][]float32, n)
	for i := range n {
		vecs[i] = benchGen.vector(384)
		err := e.Add(uint32(i), benchGen.text(10+benchGen.rng.IntN(50)), [][]float32{vecs[i]},
			DocMeta{Namespace: "main", Seq: uint64(i), Importance: 0.5})
		if err != nil {
			panic(err)
		}
	}
	if a, ok := e.vec.(*ann.Auto); ok {
		a.Wait()
	}
	benchEngines[n], benchVecs[n] = e, vecs
	return e, vecs, benchGen
}

// BenchmarkSearch is the whole search (query embedding excluded): both
// channels, fusion, priors and the relevance cut, or the literal channel
// alone; at 19,999 records (exact vector search) and 20,000 (HNSW).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{19999, 20000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			e, vecs, g := engineOf(n)
			type q struct {
				text string
				vec  []float32
			}
			qs := make([]q, 500)
			for i := range qs {
				qs[i] = q{g.text(3 + g.rng.IntN(6)), g.near(vecs[g.rng.IntN(n)])}
			}
			for _, mode := range []string{"hybrid", "literal", "hybrid-top10-filtered"} {
				b.Run(mode, func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						query := Query{Text: qs[i%len(qs)].text}
						if mode != "literal" {
							query.Vector = qs[i%len(qs)].vec
						}
						if mode == "hybrid-top10-filtered" {
							query.TopK = 10
							query.Filter = func(doc uint32) bool { return doc%7 == 0 }
						}
						res, err := e.Search(query)
						if err != nil {
							b.Fatal(err)
						}
						benchSink += len(res)
						i++
					}
				})
			}
		})
	}
}
