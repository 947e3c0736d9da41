//go:build !amd64 || !gc || purego || noasm

package simd

import "unsafe"

// Without assembly only the generic tier exists.
const bestTier = TierGeneric

var tier = bestTier

func dotF32Tier(_ Tier, q, m []float32, rows []uint32, out []float32) {
	dotF32Generic(q, m, rows, out)
}

func dotI8Tier(_ Tier, q, m []int8, rows []uint32, out []int32) {
	dotI8Generic(q, m, rows, out)
}

func features() []string { return nil }

func prefetch(first, last *uint32) {}

func prefetchLine(p unsafe.Pointer) {}

func prefetchIndexed(base unsafe.Pointer, n, size uintptr, idx []uint32) {}
