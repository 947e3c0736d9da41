package ann

import (
	"math/rand/v2"
	"testing"
)

func roomVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestRestoredIndexAppendsInPlace: an index restored from its bytes has
// room for more rows, so the adds after an open (a store after opening a
// vault) write into the restored matrix and links instead of copying them
// into new ones; and what it finds is what the index it was saved from
// finds after the same adds.
func TestRestoredIndexAppendsInPlace(t *testing.T) {
	const dim, n = 32, 3000
	rng := rand.New(rand.NewPCG(8, 9))
	for _, idx := range []Index{NewHNSW(dim, Options{}), NewExact(dim, Options{})} {
		for i := range n {
			if err := idx.Add(uint64(i), roomVec(rng, dim)); err != nil {
				t.Fatal(err)
			}
		}
		b, err := Marshal(idx)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		st := func(x Index) *store {
			switch x := x.(type) {
			case *HNSW:
				return &x.st
			case *Exact:
				return &x.st
			}
			t.Fatalf("%T", x)
			return nil
		}
		matrix := &st(back).i8[0]
		var links *uint32
		if g, ok := back.(*HNSW); ok {
			links = &g.l0[0]
		}
		for i := n; i < n+n/16; i++ {
			v := roomVec(rng, dim)
			if err := back.Add(uint64(i), v); err != nil {
				t.Fatal(err)
			}
			if err := idx.Add(uint64(i), v); err != nil {
				t.Fatal(err)
			}
		}
		if &st(back).i8[0] != matrix {
			t.Errorf("%T: adding %d rows to a restored index of %d copied its matrix", back, n/16, n)
		}
		if g, ok := back.(*HNSW); ok && &g.l0[0] != links {
			t.Errorf("HNSW: adding %d rows to a restored graph of %d copied its links", n/16, n)
		}
		for range 20 {
			q := roomVec(rng, dim)
			a, b := idx.Search(q, 10), back.Search(q, 10)
			if len(a) != len(b) {
				t.Fatalf("%T: %d hits, restored %d", idx, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%T: hit %d is %+v, restored %+v", idx, i, a[i], b[i])
				}
			}
		}
	}
}
