//go:build gc && !purego && !noasm

package simd

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// The assembly kernels all share one shape. Each doc comment's reference
// loop is [dotF32Generic] or [dotI8Generic]: rows == nil means the rows of
// m in order. The Go wrappers in simd.go check every length first.

// prefetch issues PREFETCHT0 for the lines of first, first+64 bytes and
// last (a block of up to 128 bytes and its last entry); the reference is
// doing nothing.
//
//go:noescape
func prefetch(first, last *uint32)

// prefetchLine issues PREFETCHT0 for the line of p; the reference is
// doing nothing.
//
//go:noescape
func prefetchLine(p unsafe.Pointer)

// prefetchIndexed issues PREFETCHT0 for the line of element i (of size
// bytes) of the n at base, for each i in idx below n; the reference is
// doing nothing.
//
//go:noescape
func prefetchIndexed(base unsafe.Pointer, n, size uintptr, idx []uint32)

// dotF32AVX2 scores with 4×8-lane VFMADD231PS and a scalar FMA tail.
//
//go:noescape
func dotF32AVX2(q, m []float32, rows []uint32, out []float32)

// dotF32AVX512 scores with 4×16-lane VFMADD231PS and one masked tail.
//
//go:noescape
func dotF32AVX512(q, m []float32, rows []uint32, out []float32)

// dotI8AVX2 widens both sides to int16 (VPMOVSXBW) and multiplies pairs
// into int32 (VPMADDWD). Unlike VPMADDUBSW this never saturates, so
// −128·−128 sums stay exact.
//
//go:noescape
func dotI8AVX2(q, m []int8, rows []uint32, out []int32)

// dotI8VNNI uses VPDPBUSD, which multiplies unsigned by signed bytes: each
// row byte is shifted to unsigned by XOR 0x80 (r+128), so the sum gains
// 128·Σq, which is computed once per call and subtracted from every row.
//
//go:noescape
func dotI8VNNI(q, m []int8, rows []uint32, out []int32)

// bestTier is decided once, at start-up, from what the CPU and the OS
// support (cpuid checks that the OS saves the AVX-512 state).
var bestTier = detectTier()

// tier is the tier in use; tests and benchmarks switch it with [SetTier].
var tier = bestTier

func detectTier() Tier {
	if !cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3) {
		return TierGeneric
	}
	if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.AVX512VNNI, cpuid.BMI2) {
		return TierAVX512
	}
	return TierAVX2
}

func dotF32Tier(t Tier, q, m []float32, rows []uint32, out []float32) {
	switch t {
	case TierAVX512:
		dotF32AVX512(q, m, rows, out)
	case TierAVX2:
		dotF32AVX2(q, m, rows, out)
	default:
		dotF32Generic(q, m, rows, out)
	}
}

func dotI8Tier(t Tier, q, m []int8, rows []uint32, out []int32) {
	switch t {
	case TierAVX512:
		dotI8VNNI(q, m, rows, out)
	case TierAVX2:
		dotI8AVX2(q, m, rows, out)
	default:
		dotI8Generic(q, m, rows, out)
	}
}

// features names the instructions the current tier uses.
func features() []string {
	switch tier {
	case TierAVX512:
		return []string{"avx512f", "avx512bw", "avx512vl", "avx512_vnni"}
	case TierAVX2:
		return []string{"avx2", "fma"}
	}
	return nil
}
