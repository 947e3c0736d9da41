package ann

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/compartment/compartment/simd"
)

// clustered returns n unit vectors of dim dims drawn like sentence
// embeddings: a mixture of Gaussian clusters in a 32-dim latent space,
// mapped into dim dims by a fixed random matrix, plus a little isotropic
// noise. The space (matrix and clusters) depends on dim only; seed picks
// the sample, so base vectors and queries share one distribution.
func clustered(seed uint64, n, dim int) [][]float32 {
	const latent, clusters = 32, 200
	rng := rand.New(rand.NewPCG(uint64(dim), 0x5eed))
	proj := make([]float32, dim*latent)
	for i := range proj {
		proj[i] = float32(rng.NormFloat64())
	}
	centres := make([][]float64, clusters)
	for c := range centres {
		centres[c] = make([]float64, latent)
		for j := range centres[c] {
			centres[c][j] = rng.NormFloat64()
		}
	}
	rng = rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([][]float32, n)
	z := make([]float64, latent)
	for i := range out {
		c := centres[rng.IntN(clusters)]
		for j := range z {
			z[j] = c[j] + 0.6*rng.NormFloat64()
		}
		v := make([]float32, dim)
		for d := range v {
			var s float64
			for j := range z {
				s += float64(proj[d*latent+j]) * z[j]
			}
			v[d] = float32(s + 0.5*rng.NormFloat64())
		}
		simd.Normalize(v)
		out[i] = v
	}
	return out
}

// truth returns the true top-k keys (row numbers) of q by float64 cosine.
func truth(vecs [][]float32, q []float32, k int) []uint64 {
	type sc struct {
		s float64
		i int
	}
	all := make([]sc, len(vecs))
	for i, v := range vecs {
		var s float64
		for j := range v {
			s += float64(v[j]) * float64(q[j])
		}
		all[i] = sc{s, i}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].s > all[b].s })
	keys := make([]uint64, k)
	for i := range keys {
		keys[i] = uint64(all[i].i)
	}
	return keys
}

func recall(hits []Hit, want []uint64) float64 {
	set := map[uint64]bool{}
	for _, k := range want {
		set[k] = true
	}
	n := 0
	for _, h := range hits {
		if set[h.Key] {
			n++
		}
	}
	return float64(n) / math.Max(1, float64(len(want)))
}
