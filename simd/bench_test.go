package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var (
	sinkF32 float32
	sinkI32 int32
)

var benchDims = []int{64, 128, 384, 768, 1024}

func benchEachTier(b *testing.B, f func(b *testing.B)) {
	for _, tr := range Tiers() {
		b.Run(tr.String(), func(b *testing.B) {
			prev := SetTier(tr)
			defer SetTier(prev)
			f(b)
		})
	}
}

func BenchmarkDotF32(b *testing.B) {
	benchEachTier(b, func(b *testing.B) {
		for _, dim := range benchDims {
			b.Run(fmt.Sprint("dim=", dim), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				x, y := randF32(rng, dim), randF32(rng, dim)
				b.ReportAllocs()
				b.SetBytes(int64(8 * dim))
				for b.Loop() {
					sinkF32 += DotF32(x, y)
				}
			})
		}
	})
}

func BenchmarkDotI8(b *testing.B) {
	benchEachTier(b, func(b *testing.B) {
		for _, dim := range benchDims {
			b.Run(fmt.Sprint("dim=", dim), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				x, y := randI8(rng, dim), randI8(rng, dim)
				b.ReportAllocs()
				b.SetBytes(int64(2 * dim))
				for b.Loop() {
					sinkI32 += DotI8(x, y)
				}
			})
		}
	})
}

// BenchmarkDotI8Batch is the exact-search hot loop: one query against
// 20,000 rows (7.7 MB at 384 dims, larger than L2).
func BenchmarkDotI8Batch(b *testing.B) {
	const rows = 20000
	benchEachTier(b, func(b *testing.B) {
		for _, dim := range []int{128, 384, 768} {
			b.Run(fmt.Sprint("dim=", dim), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				q, m := randI8(rng, dim), randI8(rng, dim*rows)
				out := make([]int32, rows)
				b.ReportAllocs()
				b.SetBytes(int64(dim * rows))
				for b.Loop() {
					DotI8Batch(q, m, out)
				}
			})
		}
	})
}

func BenchmarkDotF32Batch(b *testing.B) {
	const rows = 20000
	benchEachTier(b, func(b *testing.B) {
		for _, dim := range []int{128, 384} {
			b.Run(fmt.Sprint("dim=", dim), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				q, m := randF32(rng, dim), randF32(rng, dim*rows)
				out := make([]float32, rows)
				b.ReportAllocs()
				b.SetBytes(int64(4 * dim * rows))
				for b.Loop() {
					DotF32Batch(q, m, out)
				}
			})
		}
	})
}

// BenchmarkDotI8Gather scores 32 random rows of a 100k-row matrix, the
// shape of one HNSW neighbour list.
func BenchmarkDotI8Gather(b *testing.B) {
	const rows, dim, fan = 100000, 384, 32
	benchEachTier(b, func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 1))
		q, m := randI8(rng, dim), randI8(rng, dim*rows)
		idx := make([]uint32, fan)
		out := make([]int32, fan)
		b.ReportAllocs()
		b.SetBytes(int64(dim * fan))
		for b.Loop() {
			for i := range idx {
				idx[i] = uint32(rng.IntN(rows))
			}
			DotI8Gather(q, m, idx, out)
		}
	})
}

func BenchmarkQuantizeI8(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	v := randF32(rng, 384)
	Normalize(v)
	dst := make([]int8, 384)
	b.ReportAllocs()
	b.SetBytes(4 * 384)
	for b.Loop() {
		sinkF32 += QuantizeI8(dst, v)
	}
}
