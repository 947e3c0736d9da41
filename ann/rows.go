package ann

// Int8Reader is implemented by the indexes that can hand back a stored
// int8 vector exactly as it was added with AddInt8, so a caller that
// indexed its quantised vectors need not keep a second copy of them.
type Int8Reader interface {
	// RowInt8 appends key's codes to dst and returns them with the scale;
	// ok is false when key is absent or the index stores float32.
	RowInt8(dst []int8, key uint64) (codes []int8, scale float32, ok bool)
}

func (s *store) rowInt8(dst []int8, row int) ([]int8, float32, bool) {
	if s.storage != Int8 {
		return dst, 0, false
	}
	return append(dst, s.i8[row*s.dim:(row+1)*s.dim]...), s.scales[row], true
}

// RowInt8 implements [Int8Reader].
func (e *Exact) RowInt8(dst []int8, key uint64) ([]int8, float32, bool) {
	r, ok := e.rowOf[key]
	if !ok {
		return dst, 0, false
	}
	return e.st.rowInt8(dst, r)
}

// RowInt8 implements [Int8Reader].
func (h *HNSW) RowInt8(dst []int8, key uint64) ([]int8, float32, bool) {
	id, ok := h.nodeOf[key]
	if !ok {
		return dst, 0, false
	}
	return h.st.rowInt8(dst, int(id))
}

// RowInt8 implements [Int8Reader]: from whichever index is live.
func (a *Auto) RowInt8(dst []int8, key uint64) ([]int8, float32, bool) {
	if r, ok := a.current().(Int8Reader); ok {
		return r.RowInt8(dst, key)
	}
	return dst, 0, false
}
