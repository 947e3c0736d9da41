package ann

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/compartment/compartment/simd"
)

func TestRowInt8ReturnsWhatWasAdded(t *testing.T) {
	const dim, n = 16, 300
	r := rand.New(rand.NewPCG(1, 2))
	codes := make([][]int8, n)
	scales := make([]float32, n)
	for i := range codes {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		codes[i] = make([]int8, dim)
		scales[i] = simd.QuantizeI8(codes[i], v)
	}
	for name, idx := range map[string]interface {
		QuantizedAdder
		Int8Reader
		Delete(uint64) bool
	}{
		"exact": NewExact(dim, Options{}),
		"hnsw":  NewHNSW(dim, Options{}),
		"auto":  NewAuto(dim, Options{HNSWThreshold: 100}),
	} {
		for i := range codes {
			if err := idx.AddInt8(uint64(i+1), codes[i], scales[i]); err != nil {
				t.Fatal(err)
			}
		}
		idx.Delete(7)
		for i := range codes {
			got, scale, ok := idx.RowInt8(nil, uint64(i+1))
			if i+1 == 7 {
				if ok {
					t.Errorf("%s: a deleted key is still read", name)
				}
				continue
			}
			if !ok || scale != scales[i] || !slices.Equal(got, codes[i]) {
				t.Fatalf("%s: key %d: ok %v, scale %v want %v, codes differ %v", name, i+1, ok, scale, scales[i], !slices.Equal(got, codes[i]))
			}
		}
	}
	if _, _, ok := NewExact(dim, Options{Storage: F32}).RowInt8(nil, 1); ok {
		t.Errorf("a float32 index claims int8 rows")
	}
}
