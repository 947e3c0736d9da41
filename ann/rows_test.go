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

// TestScoreKeysScoresAsSearchDoes: a key's score from ScoreKeys is the one
// Search gives it (int8 and float32 storage, every index), and an absent
// or deleted key is reported absent.
func TestScoreKeysScoresAsSearchDoes(t *testing.T) {
	const dim, n = 16, 300
	r := rand.New(rand.NewPCG(3, 4))
	vec := func() []float32 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		simd.Normalize(v)
		return v
	}
	for _, storage := range []Storage{Int8, F32} {
		opts := Options{Storage: storage}
		for name, idx := range map[string]interface {
			Index
			KeyScorer
		}{
			"exact": NewExact(dim, opts),
			"hnsw":  NewHNSW(dim, opts),
			"auto":  NewAuto(dim, Options{Storage: storage, HNSWThreshold: 100}),
		} {
			for i := range n {
				if err := idx.Add(uint64(i+1), vec()); err != nil {
					t.Fatal(err)
				}
			}
			idx.Delete(7)
			q := vec()
			hits := idx.Search(q, 20)
			keys := []uint64{7, n + 5}
			for _, h := range hits {
				keys = append(keys, h.Key)
			}
			scores, ok := idx.ScoreKeys(q, keys)
			if ok[0] || ok[1] {
				t.Errorf("%s/%v: a deleted or absent key is reported present", name, storage)
			}
			for i, h := range hits {
				if !ok[i+2] || scores[i+2] != h.Score {
					t.Errorf("%s/%v: key %d scores %v (present %v), Search gave %v", name, storage, h.Key, scores[i+2], ok[i+2], h.Score)
				}
			}
			if _, ok := idx.ScoreKeys(q[:dim-1], keys); slices.Contains(ok, true) {
				t.Errorf("%s/%v: a query of the wrong dimension scored", name, storage)
			}
		}
	}
}
