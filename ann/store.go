package ann

import (
	"math"

	"github.com/compartment/compartment/simd"
)

// store holds vectors as rows of one contiguous matrix, either int8 with a
// per-row scale (symmetric quantisation, a quarter of the memory and
// bandwidth) or float32. Row numbers are the indexes' internal ids.
type store struct {
	dim     int
	storage Storage
	i8      []int8    // rows×dim, when storage == Int8
	scales  []float32 // one per row, when storage == Int8
	f32     []float32 // rows×dim, when storage == F32
	rows    int
}

func newStore(dim int, s Storage) store {
	return store{dim: dim, storage: s}
}

// query is a vector in the store's own representation: what a query is
// scored as, and what a row is written from.
type query struct {
	f32   []float32
	i8    []int8
	scale float32
}

// prepare converts v (dim long) into q, reusing q's buffers.
func (s *store) prepare(v []float32, q *query) {
	if s.storage == F32 {
		q.f32 = append(q.f32[:0], v...)
		return
	}
	if cap(q.i8) < s.dim {
		q.i8 = make([]int8, s.dim)
	}
	q.i8 = q.i8[:s.dim]
	q.scale = simd.QuantizeI8(q.i8, v)
}

// rowQuery returns row r as a query that aliases the store (read-only).
func (s *store) rowQuery(r int) query {
	if s.storage == F32 {
		return query{f32: s.f32[r*s.dim : (r+1)*s.dim]}
	}
	return query{i8: s.i8[r*s.dim : (r+1)*s.dim], scale: s.scales[r]}
}

// grow makes room for rows up to n.
func (s *store) grow(n int) {
	if n <= s.rows {
		return
	}
	if s.storage == F32 {
		s.f32 = growSlice(s.f32, n*s.dim)
	} else {
		s.i8 = growSlice(s.i8, n*s.dim)
		s.scales = growSlice(s.scales, n)
	}
	s.rows = n
}

// roomFor is the capacity, in rows, an index restored with n rows is
// given: a sixteenth more (at least 64), so the stores after an open
// append in place. Without it the first store after opening a
// 100,000-memory vault copied the whole int8 matrix (and the graph's
// links) into a new one twice its size. Capacity never written is never
// touched, so it costs address space, not resident memory.
func roomFor(n int) int { return n + n/16 + 64 }

// withRoom returns a slice of n zero elements with capacity c.
func withRoom[T any](n, c int) []T { return make([]T, n, max(n, c)) }

// reserve makes room for rows up to n and capacity for rows up to c:
// what a restore allocates in one go.
func (s *store) reserve(n, c int) {
	if s.storage == F32 {
		s.f32 = withRoom[float32](n*s.dim, c*s.dim)
	} else {
		s.i8 = withRoom[int8](n*s.dim, c*s.dim)
		s.scales = withRoom[float32](n, c)
	}
	s.rows = n
}

func growSlice[T any](v []T, n int) []T {
	if n <= cap(v) {
		return v[:n]
	}
	c := 2 * cap(v)
	if c < n {
		c = n
	}
	w := make([]T, n, c)
	copy(w, v)
	return w
}

// set writes q into row r, which must exist.
func (s *store) set(r int, q *query) {
	if s.storage == F32 {
		copy(s.f32[r*s.dim:(r+1)*s.dim], q.f32)
		return
	}
	copy(s.i8[r*s.dim:(r+1)*s.dim], q.i8)
	s.scales[r] = q.scale
}

// clear zeroes row r, so a deleted vector does not linger in memory or in
// serialised bytes.
func (s *store) clear(r int) {
	if s.storage == F32 {
		clear(s.f32[r*s.dim : (r+1)*s.dim])
		return
	}
	clear(s.i8[r*s.dim : (r+1)*s.dim])
	s.scales[r] = 0
}

// move copies row from into row to.
func (s *store) move(to, from int) {
	if s.storage == F32 {
		copy(s.f32[to*s.dim:(to+1)*s.dim], s.f32[from*s.dim:(from+1)*s.dim])
		return
	}
	copy(s.i8[to*s.dim:(to+1)*s.dim], s.i8[from*s.dim:(from+1)*s.dim])
	s.scales[to] = s.scales[from]
}

// truncate drops rows from n on.
func (s *store) truncate(n int) {
	s.rows = n
	if s.storage == F32 {
		s.f32 = s.f32[:n*s.dim]
	} else {
		s.i8 = s.i8[:n*s.dim]
		s.scales = s.scales[:n]
	}
}

// scoreRange writes the cosine of q with rows [from, to) into out;
// scratch must hold to-from int32s when the storage is int8.
func (s *store) scoreRange(q *query, from, to int, out []float32, scratch []int32) {
	if s.storage == F32 {
		simd.DotF32Batch(q.f32, s.f32[from*s.dim:to*s.dim], out[:to-from])
		return
	}
	dots := scratch[:to-from]
	simd.DotI8Batch(q.i8, s.i8[from*s.dim:to*s.dim], dots)
	sc := s.scales[from:to]
	for i, d := range dots {
		out[i] = float32(d) * q.scale * sc[i]
	}
}

// scoreRows writes the cosine of q with each listed row into out.
func (s *store) scoreRows(q *query, rows []uint32, out []float32, scratch []int32) {
	if s.storage == F32 {
		simd.DotF32Gather(q.f32, s.f32, rows, out[:len(rows)])
		return
	}
	dots := scratch[:len(rows)]
	simd.DotI8Gather(q.i8, s.i8, rows, dots)
	for i, d := range dots {
		out[i] = float32(d) * q.scale * s.scales[rows[i]]
	}
}

// score returns the cosine of q with row r.
func (s *store) score(q *query, r int) float32 {
	if s.storage == F32 {
		return simd.DotF32(q.f32, s.f32[r*s.dim:(r+1)*s.dim])
	}
	return float32(simd.DotI8(q.i8, s.i8[r*s.dim:(r+1)*s.dim])) * q.scale * s.scales[r]
}

// checkVector rejects vectors of the wrong length or with NaN or ±Inf,
// which would poison every score they take part in.
func checkVector(dim int, v []float32) error {
	if len(v) != dim {
		return errDim(len(v), dim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errNonFinite
		}
	}
	return nil
}
