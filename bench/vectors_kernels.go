package bench

import (
	"math/rand/v2"
	"time"

	"github.com/compartment/compartment/simd"
)

// The sinks are only written: the writes keep the timed calls from being
// optimised away.
var (
	//lint:ignore U1000 write-only on purpose (a benchmark sink)
	sinkF32 float32
	//lint:ignore U1000 write-only on purpose (a benchmark sink)
	sinkI32 int32
)

// measureKernels times one dot product of two dim-long vectors on the best
// tier and on the generic reference.
func measureKernels(dim int) KernelReport {
	rng := rand.New(rand.NewPCG(7, 7))
	a, b := make([]float32, dim), make([]float32, dim)
	for i := range a {
		a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	simd.Normalize(a)
	simd.Normalize(b)
	qa, qb := make([]int8, dim), make([]int8, dim)
	simd.QuantizeI8(qa, a)
	simd.QuantizeI8(qb, b)
	i8 := func() { sinkI32 += simd.DotI8(qa, qb) }
	f32 := func() { sinkF32 += simd.DotF32(a, b) }

	prev := simd.SetTier(simd.Best())
	defer simd.SetTier(prev)
	var r KernelReport
	r.DotI8, r.DotF32 = nsPerOp(i8), nsPerOp(f32)
	simd.SetTier(simd.TierGeneric)
	r.DotI8Generic, r.DotF32Gen = nsPerOp(i8), nsPerOp(f32)
	return r
}

// nsPerOp returns the fastest of 50 short timed batches (about 2 ms
// each): on a shared machine the minimum is the least disturbed estimate
// of the kernel, and short batches make an undisturbed one likely.
func nsPerOp(f func()) float64 {
	n := 1000
	for {
		t := time.Now()
		for range n {
			f()
		}
		if time.Since(t) > 2*time.Millisecond {
			break
		}
		n *= 2
	}
	best := time.Duration(1 << 62)
	for range 50 {
		t := time.Now()
		for range n {
			f()
		}
		best = min(best, time.Since(t))
	}
	return float64(best.Nanoseconds()) / float64(n)
}
