package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

const maxLen = 1024

// forEachTier runs f once per tier this machine supports, restoring the
// best tier afterwards, so the generic, AVX2 and AVX-512 kernels all run.
func forEachTier(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, tr := range Tiers() {
		t.Run(tr.String(), func(t *testing.T) {
			prev := SetTier(tr)
			defer SetTier(prev)
			if Current() != tr {
				t.Fatalf("SetTier(%v) left tier %v", tr, Current())
			}
			f(t)
		})
	}
}

func TestTiersIncludeBest(t *testing.T) {
	ts := Tiers()
	if ts[0] != TierGeneric || ts[len(ts)-1] != Best() {
		t.Fatalf("Tiers() = %v, Best() = %v", ts, Best())
	}
	t.Logf("best tier on this machine: %v; %s", Best(), Features())
}

// randI8 fills a slice with random bytes, with runs of the extremes mixed
// in: −128·−128 pairs are where a saturating VPMADDUBSW would go wrong.
func randI8(rng *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	mode := rng.IntN(4)
	for i := range v {
		switch {
		case mode == 0:
			v[i] = -128
		case mode == 1 && rng.IntN(2) == 0:
			v[i] = 127
		case mode == 1:
			v[i] = -128
		default:
			v[i] = int8(rng.Uint32())
		}
	}
	return v
}

func randF32(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	large := rng.IntN(3) == 0
	for i := range v {
		x := float32(rng.NormFloat64())
		if large {
			// Large but products and sums stay finite in any order.
			x *= 1e15
		}
		v[i] = x
	}
	return v
}

// offsetCopy returns a copy of v starting at an odd offset inside a larger
// buffer, so kernels see unaligned slices.
func offsetCopy[T any](v []T, off int) []T {
	buf := make([]T, len(v)+off+3)
	copy(buf[off:], v)
	return buf[off : off+len(v) : off+len(v)]
}

func TestDotI8MatchesGeneric(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= maxLen; n++ {
			a := offsetCopy(randI8(rng, n), 1+n%7)
			b := offsetCopy(randI8(rng, n), 3)
			if got, want := DotI8(a, b), dotI8Ref(a, b); got != want {
				t.Fatalf("n=%d: DotI8 = %d, reference %d", n, got, want)
			}
		}
	})
}

func TestDotI8Extremes(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		for _, n := range []int{1, 2, 15, 16, 31, 32, 63, 64, 65, 127, 128, 384, 1023, 1024, 4096} {
			for _, pair := range [][2]int8{{-128, -128}, {-128, 127}, {127, 127}, {-128, 1}} {
				a := make([]int8, n)
				b := make([]int8, n)
				for i := range a {
					a[i], b[i] = pair[0], pair[1]
				}
				want := int32(n) * int32(pair[0]) * int32(pair[1])
				if got := DotI8(a, b); got != want {
					t.Fatalf("n=%d %d·%d: got %d, want %d", n, pair[0], pair[1], got, want)
				}
			}
		}
	})
}

// f32Close allows the rounding difference of two summation orders:
// each differs from the exact sum by at most n·ε·Σ|aᵢbᵢ|.
func f32Close(got, want float32, a, b []float32) bool {
	if got == want {
		return true
	}
	var abs float64
	for i := range a {
		abs += math.Abs(float64(a[i]) * float64(b[i]))
	}
	tol := 2 * float64(len(a)+4) * 0x1p-24 * abs
	return math.Abs(float64(got)-float64(want)) <= tol
}

func TestDotF32MatchesGeneric(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for n := 0; n <= maxLen; n++ {
			a := offsetCopy(randF32(rng, n), 1+n%5)
			b := offsetCopy(randF32(rng, n), 2)
			got, want := DotF32(a, b), dotF32Ref(a, b)
			if !f32Close(got, want, a, b) {
				t.Fatalf("n=%d: DotF32 = %g, reference %g", n, got, want)
			}
		}
	})
}

func TestDotF32NonFinite(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 8, 9, 33, 384} {
			a := make([]float32, n)
			b := make([]float32, n)
			for i := range a {
				a[i], b[i] = 1, 1
			}
			a[n-1] = float32(math.Inf(1))
			if got := DotF32(a, b); !math.IsInf(float64(got), 1) {
				t.Fatalf("n=%d with +Inf: got %g", n, got)
			}
			a[0] = float32(math.NaN())
			if got := DotF32(a, b); got == got {
				t.Fatalf("n=%d with NaN: got %g", n, got)
			}
		}
	})
}

const guard = -7777

// guarded is a result slice for rows with a guard value either side of
// it (buf is the whole, out the rows), to catch a kernel writing outside
// out.
func guarded[T int32 | float32](rows int) (buf, out []T) {
	buf = make([]T, rows+2)
	fillGuard(buf)
	return buf, buf[1 : rows+1]
}

func fillGuard[T int32 | float32](buf []T) {
	for i := range buf {
		buf[i] = guard
	}
}

// wantGuards fails t when kernel wrote over either guard of buf.
func wantGuards[T int32 | float32](t *testing.T, buf []T, dim int, kernel string) {
	t.Helper()
	if buf[0] != guard || buf[len(buf)-1] != guard {
		t.Fatalf("dim=%d: %s wrote outside out: %v", dim, kernel, buf)
	}
}

// randRows is rows row numbers below rows, repeats allowed, as a gather
// takes them.
func randRows(rng *rand.Rand, rows int) []uint32 {
	idx := make([]uint32, rows)
	for i := range idx {
		idx[i] = uint32(rng.IntN(rows))
	}
	return idx
}

func TestBatchAndGatherI8(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for dim := 0; dim <= maxLen; dim++ {
			rows := 1 + dim%5
			q := offsetCopy(randI8(rng, dim), 1)
			m := offsetCopy(randI8(rng, dim*rows), 1+dim%3)
			buf, out := guarded[int32](rows)
			DotI8Batch(q, m, out)
			wantGuards(t, buf, dim, "batch")
			for r := range rows {
				if want := dotI8Ref(q, m[r*dim:]); out[r] != want {
					t.Fatalf("dim=%d row %d: batch %d, reference %d", dim, r, out[r], want)
				}
			}
			idx := randRows(rng, rows)
			fillGuard(buf)
			DotI8Gather(q, m, idx, out)
			wantGuards(t, buf, dim, "gather")
			for i, r := range idx {
				if want := dotI8Ref(q, m[int(r)*dim:]); out[i] != want {
					t.Fatalf("dim=%d gather %d (row %d): %d, reference %d", dim, i, r, out[i], want)
				}
			}
		}
	})
}

func TestBatchAndGatherF32(t *testing.T) {
	forEachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for dim := 0; dim <= maxLen; dim++ {
			rows := 1 + dim%5
			q := offsetCopy(randF32(rng, dim), 3)
			m := offsetCopy(randF32(rng, dim*rows), 1+dim%3)
			buf, out := guarded[float32](rows)
			DotF32Batch(q, m, out)
			wantGuards(t, buf, dim, "batch")
			for r := range rows {
				row := m[r*dim : r*dim+dim]
				if want := dotF32Ref(q, row); !f32Close(out[r], want, q, row) {
					t.Fatalf("dim=%d row %d: batch %g, reference %g", dim, r, out[r], want)
				}
			}
			idx := randRows(rng, rows)
			DotF32Gather(q, m, idx, out)
			wantGuards(t, buf, dim, "gather")
			for i, r := range idx {
				row := m[int(r)*dim : int(r)*dim+dim]
				if want := dotF32Ref(q, row); !f32Close(out[i], want, q, row) {
					t.Fatalf("dim=%d gather %d: %g, reference %g", dim, i, out[i], want)
				}
			}
		}
	})
}

// TestTiersAgreeI8 checks bit-identical int8 results across tiers on one
// large batch, the property the exact index relies on.
func TestTiersAgreeI8(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const dim, rows = 384, 500
	q, m := randI8(rng, dim), randI8(rng, dim*rows)
	want := make([]int32, rows)
	prev := SetTier(TierGeneric)
	DotI8Batch(q, m, want)
	SetTier(prev)
	forEachTier(t, func(t *testing.T) {
		got := make([]int32, rows)
		DotI8Batch(q, m, got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("row %d: %d, generic %d", i, got[i], want[i])
			}
		}
	})
}

func TestMisusePanics(t *testing.T) {
	cases := map[string]func(){
		"DotF32 lengths":     func() { DotF32(make([]float32, 3), make([]float32, 4)) },
		"DotI8 lengths":      func() { DotI8(make([]int8, 3), make([]int8, 4)) },
		"DotI8Batch shape":   func() { DotI8Batch(make([]int8, 4), make([]int8, 7), make([]int32, 2)) },
		"DotF32Batch shape":  func() { DotF32Batch(make([]float32, 4), make([]float32, 9), make([]float32, 2)) },
		"gather row range":   func() { DotI8Gather(make([]int8, 4), make([]int8, 8), []uint32{2}, make([]int32, 1)) },
		"gather out length":  func() { DotF32Gather(make([]float32, 4), make([]float32, 8), []uint32{1}, make([]float32, 2)) },
		"QuantizeI8 lengths": func() { QuantizeI8(make([]int8, 2), make([]float32, 3)) },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

func TestNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 3, 384, 1000} {
		v := randF32(rng, n)
		Normalize(v)
		if l := DotF32(v, v); math.Abs(float64(l)-1) > 1e-5 {
			t.Fatalf("n=%d: |v|² = %g after Normalize", n, l)
		}
	}
	zero := make([]float32, 8)
	if n := Normalize(zero); n != 0 || zero[0] != 0 {
		t.Fatalf("zero vector: norm %g, v[0] %g", n, zero[0])
	}
}

func TestQuantizeI8(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 2, 384, 1024} {
		v := randF32(rng, n)
		Normalize(v)
		q := make([]int8, n)
		s := QuantizeI8(q, v)
		for i := range v {
			if q[i] == -128 {
				t.Fatalf("n=%d: quantised to -128", n)
			}
			if d := math.Abs(float64(v[i]) - float64(s)*float64(q[i])); d > float64(s)/2*1.0001 {
				t.Fatalf("n=%d i=%d: %g quantised to %d·%g (error %g)", n, i, v[i], q[i], s, d)
			}
		}
		// The dequantised self-score of a unit vector is close to 1.
		if self := DequantI8(DotI8(q, q), s, s); math.Abs(float64(self)-1) > 0.01 {
			t.Fatalf("n=%d: dequantised |v|² = %g", n, self)
		}
	}
	v := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, -1}
	q := make([]int8, len(v))
	s := QuantizeI8(q, v)
	if want := []int8{0, 127, -127, 64, -127}; fmt.Sprint(q) != fmt.Sprint(want) || s != float32(1)/127 {
		t.Fatalf("non-finite: %v scale %g, want %v scale %g", q, s, want, float32(1)/127)
	}
	if s := QuantizeI8(q[:2], []float32{0, 0}); s != 0 || q[0] != 0 || q[1] != 0 {
		t.Fatalf("zero vector: %v scale %g", q[:2], s)
	}
}

// TestPrefetchIndexed: hinting the elements of a slice by index, some of
// them past its end, changes nothing of the slice and never faults.
func TestPrefetchIndexed(t *testing.T) {
	type row struct{ a, b uint32 }
	base := make([]row, 1000)
	for i := range base {
		base[i] = row{uint32(i), uint32(2 * i)}
	}
	idx := []uint32{0, 999, 1000, 1 << 31, 0xFFFFFFFF, 17, 512}
	PrefetchIndexed(base, idx)
	PrefetchIndexed(base, nil)
	PrefetchIndexed([]row(nil), idx)
	for i, r := range base {
		if r != (row{uint32(i), uint32(2 * i)}) {
			t.Fatalf("row %d changed to %+v", i, r)
		}
	}
}
