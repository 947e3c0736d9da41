package search

import (
	"slices"

	"github.com/compartment/compartment/ann"
)

// Int8Windows returns doc's first n windows exactly as they were added
// quantised (codes and scales), read back from the vector index; ok is
// false when any is missing or the index keeps float32. It lets the vault
// keep one copy of each vector, the index's.
func (e *Engine) Int8Windows(doc uint32, n int) (codes [][]int8, scales []float32, ok bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	r, isReader := e.vec.(ann.Int8Reader)
	if !isReader || n <= 0 || n > MaxWindows {
		return nil, nil, false
	}
	codes, scales = make([][]int8, n), make([]float32, n)
	for w := range n {
		if codes[w], scales[w], ok = r.RowInt8(nil, windowKey(doc, w)); !ok {
			return nil, nil, false
		}
	}
	return codes, scales, true
}

// HoldsInt8Windows reports whether the vector index holds exactly these
// codes and scales as doc's windows, without copying them out.
func (e *Engine) HoldsInt8Windows(doc uint32, codes [][]int8, scales []float32) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	r, isReader := e.vec.(ann.Int8Reader)
	if !isReader || len(codes) == 0 || len(codes) != len(scales) || len(codes) > MaxWindows {
		return false
	}
	var buf []int8
	for w := range codes {
		got, scale, ok := r.RowInt8(buf[:0], windowKey(doc, w))
		if !ok || scale != scales[w] || !slices.Equal(got, codes[w]) {
			return false
		}
		buf = got
	}
	return true
}
