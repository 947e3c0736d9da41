package ann

import "fmt"

// QuantizedAdder is implemented by the indexes that can take a vector
// already quantised to int8 (value ≈ v[i]·scale, symmetric, as
// simd.QuantizeI8 makes it). A vault stores its vectors that way, so it can
// rebuild an index without turning them back into float32 first.
type QuantizedAdder interface {
	AddInt8(key uint64, v []int8, scale float32) error
}

// prepareInt8 converts a quantised vector into the store's representation.
func (s *store) prepareInt8(v []int8, scale float32, q *query) error {
	if len(v) != s.dim {
		return fmt.Errorf("ann: vector has %d dims, index has %d", len(v), s.dim)
	}
	if s.storage == Int8 {
		q.i8, q.scale = v, scale
		return nil
	}
	q.f32 = dequantize(q.f32[:0], v, scale)
	return nil
}

func dequantize(dst []float32, v []int8, scale float32) []float32 {
	for _, x := range v {
		dst = append(dst, float32(x)*scale)
	}
	return dst
}

// AddInt8 stores a quantised vector under key, replacing the key's
// previous vector.
func (e *Exact) AddInt8(key uint64, v []int8, scale float32) error {
	var q query
	if err := e.st.prepareInt8(v, scale, &q); err != nil {
		return err
	}
	e.addQuery(key, &q)
	return nil
}

// AddInt8 stores a quantised vector under key, replacing the key's
// previous vector.
func (h *HNSW) AddInt8(key uint64, v []int8, scale float32) error {
	var q query
	if err := h.st.prepareInt8(v, scale, &q); err != nil {
		return err
	}
	h.addQuery(key, &q)
	return nil
}

// AddInt8 stores a quantised vector under key, replacing the key's
// previous vector.
func (a *Auto) AddInt8(key uint64, v []int8, scale float32) error {
	if len(v) != a.dim {
		return fmt.Errorf("ann: vector has %d dims, index has %d", len(v), a.dim)
	}
	if h, ok := a.current().(*HNSW); ok {
		return h.AddInt8(key, v, scale)
	}
	if err := a.exact.AddInt8(key, v, scale); err != nil {
		return err
	}
	if a.build != nil {
		a.forward(op{key: key, vec: dequantize(nil, v, scale)})
	}
	a.maybeBuild()
	return nil
}

// Close stops a background build, if one is running, and drops it: an
// index that is being thrown away must not keep a core busy building a
// graph nobody will search. The index stays usable (exact).
func (a *Auto) Close() {
	a.mu.Lock()
	b := a.build
	a.mu.Unlock()
	if b == nil {
		return
	}
	b.mu.Lock()
	b.stop = true
	b.mu.Unlock()
	<-b.done
	a.mu.Lock()
	if a.build == b && a.hnsw == nil {
		a.build = nil
	}
	a.mu.Unlock()
}
