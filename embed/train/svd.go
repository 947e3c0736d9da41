package train

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// dense is a row-major matrix of float64.
type dense struct {
	r, c int
	a    []float64
}

func newDense(r, c int) dense { return dense{r, c, make([]float64, r*c)} }

func (d dense) row(i int) []float64 { return d.a[i*d.c : (i+1)*d.c] }

// parallelRows runs fn over [0, n) split into two contiguous halves, one per
// core. Each output row is written by exactly one goroutine, so results do
// not depend on scheduling.
func parallelRows(n int, fn func(lo, hi int)) {
	var wg sync.WaitGroup
	mid := n / 2
	for _, r := range [][2]int{{0, mid}, {mid, n}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(r[0], r[1])
		}()
	}
	wg.Wait()
}

// mulDense returns m·x.
func (m *csr) mulDense(x dense) dense {
	y := newDense(m.rows, x.c)
	parallelRows(m.rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := y.row(i)
			for k := m.ptr[i]; k < m.ptr[i+1]; k++ {
				a := float64(m.val[k])
				in := x.row(int(m.col[k]))
				for j := range out {
					out[j] += a * in[j]
				}
			}
		}
	})
	return y
}

// orthonormalize replaces the columns of y by an orthonormal basis of their
// span (modified Gram–Schmidt, twice for accuracy).
func orthonormalize(y dense) {
	cols := make([][]float64, y.c)
	for j := range cols {
		cols[j] = make([]float64, y.r)
		for i := 0; i < y.r; i++ {
			cols[j][i] = y.a[i*y.c+j]
		}
	}
	for pass := 0; pass < 2; pass++ {
		for k := range cols {
			normalizeVec(cols[k])
			rest := cols[k+1:]
			parallelRows(len(rest), func(lo, hi int) {
				for _, c := range rest[lo:hi] {
					axpy(-dot(cols[k], c), cols[k], c)
				}
			})
		}
	}
	for j, c := range cols {
		for i, x := range c {
			y.a[i*y.c+j] = x
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(alpha float64, x, y []float64) {
	for i := range y {
		y[i] += alpha * x[i]
	}
}

func normalizeVec(v []float64) {
	n := math.Sqrt(dot(v, v))
	if n == 0 {
		return
	}
	for i := range v {
		v[i] /= n
	}
}

// randomizedSVD returns the top k left singular vectors of m and their
// singular values, using the randomised range finder of Halko, Martinsson and Tropp
// (2011) with oversampling and power iterations. The Gaussian test matrix
// comes from a fixed seed.
func randomizedSVD(m *csr, k, oversample, iters int, seed uint64) (dense, []float64) {
	l := k + oversample
	mt := m.transpose()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	omega := newDense(m.cols, l)
	for i := range omega.a {
		omega.a[i] = rng.NormFloat64()
	}
	y := m.mulDense(omega)
	orthonormalize(y)
	for it := 0; it < iters; it++ {
		z := mt.mulDense(y)
		orthonormalize(z)
		y = m.mulDense(z)
		orthonormalize(y)
	}
	bt := mt.mulDense(y) // (Qᵀ m)ᵀ, cols × l
	gram := newDense(l, l)
	for c := 0; c < bt.r; c++ {
		r := bt.row(c)
		for i := 0; i < l; i++ {
			if r[i] == 0 {
				continue
			}
			axpy(r[i], r, gram.row(i))
		}
	}
	vals, vecs := symmetricEigen(gram)
	u := newDense(m.rows, k)
	sigma := make([]float64, k)
	for j := 0; j < k; j++ {
		sigma[j] = math.Sqrt(math.Max(vals[j], 0))
	}
	parallelRows(m.rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			q := y.row(i)
			out := u.row(i)
			for j := 0; j < k; j++ {
				var s float64
				for t := 0; t < l; t++ {
					s += q[t] * vecs.a[t*l+j]
				}
				out[j] = s
			}
		}
	})
	return u, sigma
}

// symmetricEigen diagonalises a symmetric matrix by cyclic Jacobi
// rotations; it returns the eigenvalues in decreasing order and the
// eigenvectors as the matching columns.
func symmetricEigen(s dense) ([]float64, dense) {
	n := s.r
	a := append([]float64(nil), s.a...)
	v := newDense(n, n)
	for i := 0; i < n; i++ {
		v.a[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off float64
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				jacobiRotate(a, v.a, n, p, q)
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a[order[i]*n+order[i]] > a[order[j]*n+order[j]] })
	vals := make([]float64, n)
	vecs := newDense(n, n)
	for j, o := range order {
		vals[j] = a[o*n+o]
		for i := 0; i < n; i++ {
			vecs.a[i*n+j] = v.a[i*n+o]
		}
	}
	return vals, vecs
}

// jacobiRotate zeroes a[p][q] with one Givens rotation applied on both
// sides, accumulating it into v.
func jacobiRotate(a, v []float64, n, p, q int) {
	apq := a[p*n+q]
	if math.Abs(apq) < 1e-300 {
		return
	}
	theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
	t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
	c := 1 / math.Sqrt(t*t+1)
	s := t * c
	for k := 0; k < n; k++ {
		akp, akq := a[k*n+p], a[k*n+q]
		a[k*n+p] = c*akp - s*akq
		a[k*n+q] = s*akp + c*akq
	}
	for k := 0; k < n; k++ {
		apk, aqk := a[p*n+k], a[q*n+k]
		a[p*n+k] = c*apk - s*aqk
		a[q*n+k] = s*apk + c*aqk
	}
	for k := 0; k < n; k++ {
		vkp, vkq := v[k*n+p], v[k*n+q]
		v[k*n+p] = c*vkp - s*vkq
		v[k*n+q] = s*vkp + c*vkq
	}
}
