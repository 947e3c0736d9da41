package simd

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// Tier names one family of kernels. Higher tiers are faster and need more
// of the CPU; [Best] is the highest this CPU and build support.
type Tier uint8

const (
	// TierGeneric is the pure-Go reference, available everywhere.
	TierGeneric Tier = iota
	// TierAVX2 uses AVX2 and FMA: 8-lane float32 FMA and int8 products
	// widened to int16 (VPMOVSXBW + VPMADDWD, exact for every input).
	TierAVX2
	// TierAVX512 uses AVX-512 F/BW/VL and VNNI: 16-lane float32 FMA with
	// masked tails, and int8 through VPDPBUSD with the +128 shift.
	TierAVX512
)

// String returns the tier's short name, as benchmarks and reports print it.
func (t Tier) String() string {
	switch t {
	case TierGeneric:
		return "generic"
	case TierAVX2:
		return "avx2"
	case TierAVX512:
		return "avx512vnni"
	}
	return fmt.Sprintf("tier(%d)", uint8(t))
}

// Best returns the fastest tier this CPU and build support.
func Best() Tier { return bestTier }

// Current returns the tier the kernels use now.
func Current() Tier { return tier }

// SetTier makes the kernels use t, or the best supported tier below it, and
// returns the tier in use before. It exists so tests and benchmarks can run
// every tier on one machine; it must not race with kernel calls.
func SetTier(t Tier) (previous Tier) {
	previous = tier
	if t > bestTier {
		t = bestTier
	}
	tier = t
	return previous
}

// Tiers lists every tier this CPU and build support, lowest first.
func Tiers() []Tier {
	ts := make([]Tier, 0, 3)
	for t := TierGeneric; t <= bestTier; t++ {
		ts = append(ts, t)
	}
	return ts
}

// DotF32 returns the dot product of a and b, which must have equal lengths.
// The summation order depends on the tier, so results may differ between
// tiers in the last bits.
func DotF32(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("simd: DotF32 of slices with different lengths")
	}
	var out [1]float32
	dotF32(a, b, nil, out[:])
	return out[0]
}

// DotI8 returns the exact dot product of a and b, which must have equal
// lengths. The sum is exact for lengths up to 131,072 and wraps modulo
// 2^32 beyond, identically on every tier.
func DotI8(a, b []int8) int32 {
	if len(a) != len(b) {
		panic("simd: DotI8 of slices with different lengths")
	}
	var out [1]int32
	dotI8(a, b, nil, out[:])
	return out[0]
}

// DotF32Batch scores q against every row of the row-major matrix m:
// out[r] = DotF32(q, m[r*len(q):(r+1)*len(q)]). len(m) must be
// len(q)*len(out).
func DotF32Batch(q, m []float32, out []float32) {
	if len(m) != len(q)*len(out) {
		panic("simd: DotF32Batch: len(m) != len(q)*len(out)")
	}
	dotF32(q, m, nil, out)
}

// DotI8Batch scores q against every row of the row-major matrix m:
// out[r] = DotI8(q, m[r*len(q):(r+1)*len(q)]). len(m) must be
// len(q)*len(out).
func DotI8Batch(q, m []int8, out []int32) {
	if len(m) != len(q)*len(out) {
		panic("simd: DotI8Batch: len(m) != len(q)*len(out)")
	}
	dotI8(q, m, nil, out)
}

// DotF32Gather scores q against the listed rows of the row-major matrix m:
// out[i] = DotF32(q, m[rows[i]*len(q):(rows[i]+1)*len(q)]). It is the
// graph-search hot loop: the next row is prefetched while one is scored.
func DotF32Gather(q, m []float32, rows []uint32, out []float32) {
	checkGather(len(q), len(m), rows, len(out))
	dotF32(q, m, rows, out)
}

// DotI8Gather scores q against the listed rows of the row-major matrix m:
// out[i] = DotI8(q, m[rows[i]*len(q):(rows[i]+1)*len(q)]).
func DotI8Gather(q, m []int8, rows []uint32, out []int32) {
	checkGather(len(q), len(m), rows, len(out))
	dotI8(q, m, rows, out)
}

// PrefetchUint32s hints the processor to start loading the cache lines
// that hold s (up to 128 bytes of it: a graph node's link block), so a
// load of it later does not wait on memory. It is only a hint: it reads
// nothing, changes nothing and never faults; without assembly it does
// nothing.
func PrefetchUint32s(s []uint32) {
	if len(s) > 0 {
		prefetch(&s[0], &s[len(s)-1])
	}
}

// Prefetch hints the processor to start loading the cache line holding
// *p, for a loop that knows which scattered element it will touch a few
// steps ahead (a posting list's accumulators). Like [PrefetchUint32s] it
// reads nothing, changes nothing and never faults.
func Prefetch[T any](p *T) { prefetchLine(unsafe.Pointer(p)) }

// PrefetchIndexed hints the processor to start loading the cache lines
// holding base[i] for each i in idx (indexes past base are skipped): one
// call for a block of scattered elements a loop will touch, where a
// [Prefetch] per element would cost a call each. Like Prefetch it reads
// nothing of base, changes nothing and never faults.
func PrefetchIndexed[T any](base []T, idx []uint32) {
	if len(base) > 0 && len(idx) > 0 {
		prefetchIndexed(unsafe.Pointer(&base[0]), uintptr(len(base)), unsafe.Sizeof(base[0]), idx)
	}
}

func checkGather(dim, mlen int, rows []uint32, outLen int) {
	if len(rows) != outLen {
		panic("simd: gather: len(rows) != len(out)")
	}
	if dim == 0 {
		return
	}
	nrows := mlen / dim
	for _, r := range rows {
		if int(r) >= nrows {
			panic("simd: gather: row index out of range")
		}
	}
}

// dotF32 and dotI8 dispatch on the tier; rows == nil means the rows of m
// in order, len(out) of them.
func dotF32(q, m []float32, rows []uint32, out []float32) {
	if len(out) == 0 {
		return
	}
	dotF32Tier(tier, q, m, rows, out)
}

func dotI8(q, m []int8, rows []uint32, out []int32) {
	if len(out) == 0 {
		return
	}
	dotI8Tier(tier, q, m, rows, out)
}

// Normalize scales v to unit L2 length in place and returns its previous
// length. A zero vector is left as it is.
func Normalize(v []float32) (norm float32) {
	n := float32(math.Sqrt(float64(DotF32(v, v))))
	if n == 0 || math.IsInf(float64(n), 0) || n != n {
		return n
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
	return n
}

// QuantizeI8 writes the symmetric int8 quantisation of v into dst (same
// length) and returns its scale: v[i] ≈ scale·dst[i], with the largest
// magnitude mapped to ±127 (never −128, so negation stays exact). NaN maps
// to 0 and ±Inf to ±127 with the scale of the finite values.
func QuantizeI8(dst []int8, v []float32) (scale float32) {
	if len(dst) != len(v) {
		panic("simd: QuantizeI8 of slices with different lengths")
	}
	var maxAbs float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a > maxAbs && !math.IsInf(float64(a), 0) {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		for i, x := range v {
			dst[i] = infSign(x)
		}
		return 0
	}
	inv := 127 / maxAbs
	for i, x := range v {
		switch {
		case x != x:
			dst[i] = 0
		case math.IsInf(float64(x), 0):
			dst[i] = infSign(x)
		default:
			dst[i] = int8(math.Round(float64(x * inv)))
		}
	}
	return maxAbs / 127
}

func infSign(x float32) int8 {
	switch {
	case math.IsInf(float64(x), 1):
		return 127
	case math.IsInf(float64(x), -1):
		return -127
	}
	return 0
}

// DequantI8 turns the int8 dot product of two quantised vectors back into
// the approximate float dot product of the originals.
func DequantI8(dot int32, scaleA, scaleB float32) float32 {
	return float32(dot) * scaleA * scaleB
}

// Features describes the CPU and the instructions the current tier uses,
// for benchmark reports, e.g. "AMD EPYC: avx512vnni (avx512f,avx512bw,...)".
func Features() string {
	s := cpuid.CPU.BrandName + ": " + tier.String()
	if f := features(); len(f) > 0 {
		s += " (" + strings.Join(f, ",") + ")"
	}
	return s
}
