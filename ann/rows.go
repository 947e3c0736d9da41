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
	id, ok := h.nodeOf.get(key)
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

// KeyScorer is implemented by the indexes that can score chosen keys
// against a query exactly as Search scores them, so that a caller can
// complete the semantic evidence of records it found some other way.
type KeyScorer interface {
	// ScoreKeys returns each key's score against query; ok[i] is false
	// when keys[i] is absent (or query has the wrong dimension).
	ScoreKeys(query []float32, keys []uint64) (scores []float32, ok []bool)
}

// scoreKeys scores the keys that row finds against vec.
func (s *store) scoreKeys(vec []float32, keys []uint64, row func(uint64) (int, bool)) ([]float32, []bool) {
	scores, ok := make([]float32, len(keys)), make([]bool, len(keys))
	if len(vec) != s.dim {
		return scores, ok
	}
	var q query
	s.prepare(vec, &q)
	for i, key := range keys {
		if r, found := row(key); found {
			scores[i], ok[i] = s.score(&q, r), true
		}
	}
	return scores, ok
}

// ScoreKeys implements [KeyScorer].
func (e *Exact) ScoreKeys(query []float32, keys []uint64) ([]float32, []bool) {
	return e.st.scoreKeys(query, keys, func(key uint64) (int, bool) {
		r, ok := e.rowOf[key]
		return int(r), ok
	})
}

// ScoreKeys implements [KeyScorer].
func (h *HNSW) ScoreKeys(query []float32, keys []uint64) ([]float32, []bool) {
	return h.st.scoreKeys(query, keys, func(key uint64) (int, bool) {
		id, ok := h.nodeOf.get(key)
		return int(id), ok
	})
}

// ScoreKeys implements [KeyScorer]: from whichever index is live.
func (a *Auto) ScoreKeys(query []float32, keys []uint64) ([]float32, []bool) {
	if s, ok := a.current().(KeyScorer); ok {
		return s.ScoreKeys(query, keys)
	}
	return make([]float32, len(keys)), make([]bool, len(keys))
}
