package ann

import (
	"math/rand/v2"
	"testing"

	"github.com/compartment/compartment/simd"
)

// Adding vectors already quantised must answer exactly as adding the float
// vectors they came from, for every index and storage.
func TestAddInt8MatchesAdd(t *testing.T) {
	const dim, n = 32, 300
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		simd.Normalize(v)
		vecs[i] = v
	}
	for _, storage := range []Storage{Int8, F32} {
		opts := Options{Storage: storage, HNSWThreshold: 100, Seed: 1}
		for name, mk := range map[string]func() Index{
			"exact": func() Index { return NewExact(dim, opts) },
			"hnsw":  func() Index { return NewHNSW(dim, opts) },
			"auto":  func() Index { return NewAuto(dim, opts) },
		} {
			plain, quant := mk(), mk()
			for i, v := range vecs {
				q := make([]int8, dim)
				scale := simd.QuantizeI8(q, v)
				// What the float path stores is the quantised vector's
				// own float value, so both indexes see the same data.
				deq := dequantize(nil, q, scale)
				if err := plain.Add(uint64(i), deq); err != nil {
					t.Fatal(err)
				}
				if err := quant.(QuantizedAdder).AddInt8(uint64(i), q, scale); err != nil {
					t.Fatal(err)
				}
			}
			if a, ok := plain.(*Auto); ok {
				a.Wait()
				quant.(*Auto).Wait()
			}
			for qi := 0; qi < 20; qi++ {
				a, b := plain.Search(vecs[qi*7], 10), quant.Search(vecs[qi*7], 10)
				for j := range a {
					if a[j].Key != b[j].Key {
						t.Fatalf("%s/%d query %d: Add gives %v, AddInt8 %v", name, storage, qi, a, b)
					}
				}
			}
		}
	}
	if err := NewExact(dim, Options{}).AddInt8(1, make([]int8, dim-1), 1); err == nil {
		t.Error("a short vector was accepted")
	}
}

// Close stops a background build and leaves a working exact index.
func TestAutoCloseStopsTheBuild(t *testing.T) {
	const dim = 16
	a := NewAuto(dim, Options{HNSWThreshold: 500})
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		simd.Normalize(v)
		if err := a.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	if a.Len() != 2000 || len(a.Search(make([]float32, dim), 5)) != 5 {
		t.Fatalf("after Close: len %d", a.Len())
	}
}
