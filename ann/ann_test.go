package ann

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/compartment/compartment/simd"
)

func long() bool { return os.Getenv("COMPARTMENT_LONG") == "1" }

func keysOf(hits []Hit) []uint64 {
	out := make([]uint64, len(hits))
	for i, h := range hits {
		out[i] = h.Key
	}
	return out
}

func fill(t testing.TB, idx Index, vecs [][]float32) {
	t.Helper()
	for i, v := range vecs {
		if err := idx.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExactF32IsExact(t *testing.T) {
	vecs := clustered(1, 3000, 64)
	e := NewExact(64, Options{Storage: F32})
	fill(t, e, vecs)
	for qi, q := range clustered(2, 20, 64) {
		hits := e.Search(q, 10)
		want := truth(vecs, q, 10)
		if r := recall(hits, want); r != 1 {
			t.Fatalf("query %d: recall %.2f: got %v want %v", qi, r, keysOf(hits), want)
		}
		for i := 1; i < len(hits); i++ {
			if worse(hits[i-1], hits[i]) {
				t.Fatalf("query %d: hits out of order: %v", qi, hits)
			}
		}
		if d := math.Abs(float64(hits[0].Score - simd.DotF32(q, vecs[hits[0].Key]))); d > 1e-6 {
			t.Fatalf("query %d: score off by %g", qi, d)
		}
	}
}

func TestExactInt8ScoresAreCosines(t *testing.T) {
	vecs := clustered(3, 2000, 384)
	e := NewExact(384, Options{})
	fill(t, e, vecs)
	var worst float64
	for _, q := range clustered(4, 20, 384) {
		for _, h := range e.Search(q, 50) {
			worst = math.Max(worst, math.Abs(float64(h.Score-simd.DotF32(q, vecs[h.Key]))))
		}
	}
	t.Logf("largest int8 score error: %.5f", worst)
	if worst > 0.01 {
		t.Fatalf("int8 scores differ from cosines by up to %g", worst)
	}
}

func TestSearchEdgeCases(t *testing.T) {
	for name, idx := range map[string]Index{"exact": NewExact(8, Options{}), "hnsw": NewHNSW(8, Options{}), "auto": New(8, Options{})} {
		t.Run(name, func(t *testing.T) {
			q := []float32{1, 0, 0, 0, 0, 0, 0, 0}
			if h := idx.Search(q, 5); len(h) != 0 {
				t.Fatalf("empty index returned %v", h)
			}
			if err := idx.Add(1, q[:7]); err == nil {
				t.Fatal("wrong dimension accepted")
			}
			if err := idx.Add(1, []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}); err == nil {
				t.Fatal("NaN accepted")
			}
			if err := idx.Add(7, q); err != nil {
				t.Fatal(err)
			}
			if h := idx.Search(q, 0); len(h) != 0 {
				t.Fatalf("k=0 returned %v", h)
			}
			if h := idx.Search(q[:3], 1); len(h) != 0 {
				t.Fatalf("wrong-dimension query returned %v", h)
			}
			if h := idx.Search(q, 10); len(h) != 1 || h[0].Key != 7 {
				t.Fatalf("got %v, want key 7 only", h)
			}
			if idx.Len() != 1 || idx.Dim() != 8 {
				t.Fatalf("Len %d Dim %d", idx.Len(), idx.Dim())
			}
		})
	}
}

// TestAddReplaces checks that adding an existing key replaces its vector
// and keeps one entry.
func TestAddReplaces(t *testing.T) {
	vecs := clustered(5, 500, 32)
	for name, idx := range map[string]Index{"exact": NewExact(32, Options{}), "hnsw": NewHNSW(32, Options{})} {
		t.Run(name, func(t *testing.T) {
			fill(t, idx, vecs)
			if err := idx.Add(3, vecs[400]); err != nil {
				t.Fatal(err)
			}
			if idx.Len() != 500 {
				t.Fatalf("Len %d after replace, want 500", idx.Len())
			}
			hits := idx.Search(vecs[400], 2)
			got := map[uint64]bool{hits[0].Key: true, hits[1].Key: true}
			if !got[3] || !got[400] {
				t.Fatalf("replaced key 3 not found next to 400: %v", hits)
			}
		})
	}
}

// TestDeleteNeverReturns deletes a third of the keys, in random order and
// including the entry point, and checks no search returns one of them and
// the rest are still found.
func TestDeleteNeverReturns(t *testing.T) {
	vecs := clustered(6, 3000, 64)
	queries := clustered(7, 50, 64)
	for name, idx := range map[string]Index{
		"exact": NewExact(64, Options{}), "hnsw": NewHNSW(64, Options{}), "hnsw-f32": NewHNSW(64, Options{Storage: F32}),
	} {
		t.Run(name, func(t *testing.T) {
			fill(t, idx, vecs)
			rng := rand.New(rand.NewPCG(8, 8))
			deleted := map[uint64]bool{}
			if h, ok := idx.(*HNSW); ok {
				deleted[h.keys[h.entry]] = true
				idx.Delete(h.keys[h.entry])
			}
			for len(deleted) < 1000 {
				k := uint64(rng.IntN(len(vecs)))
				if got := idx.Delete(k); got == deleted[k] {
					t.Fatalf("Delete(%d) = %v, already deleted %v", k, got, deleted[k])
				}
				deleted[k] = true
			}
			if idx.Len() != len(vecs)-len(deleted) {
				t.Fatalf("Len %d, want %d", idx.Len(), len(vecs)-len(deleted))
			}
			live := NewExact(64, Options{})
			for i, v := range vecs {
				if !deleted[uint64(i)] {
					live.Add(uint64(i), v)
				}
			}
			var rec float64
			for _, q := range append(queries, vecs[:50]...) {
				hits := idx.Search(q, 20)
				for _, h := range hits {
					if deleted[h.Key] {
						t.Fatalf("deleted key %d returned", h.Key)
					}
				}
				rec += recall(hits, keysOf(live.Search(q, 20)))
			}
			rec /= 100
			t.Logf("recall@20 after deleting a third: %.4f", rec)
			if rec < 0.95 {
				t.Fatalf("recall %.4f after deletions", rec)
			}
			if e, ok := idx.(*Exact); ok && e.Tombstones() >= 64 && e.Tombstones()*4 >= e.st.rows {
				t.Fatalf("tombstones not compacted: %d of %d rows", e.Tombstones(), e.st.rows)
			}
			// Deleting everything leaves an empty index that works again.
			for i := range vecs {
				idx.Delete(uint64(i))
			}
			if idx.Len() != 0 || len(idx.Search(queries[0], 5)) != 0 {
				t.Fatalf("index not empty after deleting all: Len %d", idx.Len())
			}
			fill(t, idx, vecs[:100])
			if h := idx.Search(vecs[42], 1); len(h) != 1 || h[0].Key != 42 {
				t.Fatalf("after refill: %v", h)
			}
		})
	}
}

// TestExactCompact checks compaction keeps every live key and its vector.
func TestExactCompact(t *testing.T) {
	vecs := clustered(9, 1000, 16)
	e := NewExact(16, Options{Storage: F32})
	fill(t, e, vecs)
	for i := 0; i < 1000; i += 3 {
		e.Delete(uint64(i))
	}
	e.Compact()
	if e.Tombstones() != 0 || e.st.rows != e.Len() {
		t.Fatalf("after Compact: %d tombstones, %d rows, %d live", e.Tombstones(), e.st.rows, e.Len())
	}
	for i, v := range vecs {
		hits := e.Search(v, 1)
		if i%3 == 0 {
			if len(hits) > 0 && hits[0].Key == uint64(i) {
				t.Fatalf("deleted key %d found", i)
			}
			continue
		}
		if hits[0].Key != uint64(i) || math.Abs(float64(hits[0].Score)-1) > 1e-5 {
			t.Fatalf("key %d: got %v", i, hits[0])
		}
	}
}

// TestHNSWRecall is the recall test: recall@10 against the exact
// index with the same storage. 20k vectors by default, 50k with
// COMPARTMENT_LONG=1.
func TestHNSWRecall(t *testing.T) {
	n := 20000
	if long() {
		n = 50000
	} else if testing.Short() {
		n = 5000
	}
	for _, st := range []Storage{Int8, F32} {
		if st == F32 && !long() {
			continue
		}
		t.Run(st.String(), func(t *testing.T) {
			vecs := clustered(10, n, 384)
			h := NewHNSW(384, Options{Storage: st})
			e := NewExact(384, Options{Storage: st})
			start := time.Now()
			fill(t, h, vecs)
			build := time.Since(start)
			fill(t, e, vecs)
			queries := clustered(11, 200, 384)
			var rec, recTruth float64
			for i, q := range queries {
				hits := h.Search(q, 10)
				rec += recall(hits, keysOf(e.Search(q, 10)))
				if i < 50 {
					recTruth += recall(hits, truth(vecs, q, 10))
				}
			}
			rec /= float64(len(queries))
			t.Logf("n=%d %v: build %v, recall@10 vs exact %.4f, vs float64 truth %.4f (default ef)", n, st, build, rec, recTruth/50)
			if rec < 0.99 {
				t.Fatalf("recall@10 %.4f < 0.99", rec)
			}
		})
	}
}

func sameResults(t *testing.T, a, b Index, queries [][]float32) {
	t.Helper()
	for i, q := range queries {
		ha, hb := a.Search(q, 10), b.Search(q, 10)
		if !reflect.DeepEqual(ha, hb) {
			t.Fatalf("query %d: %v vs %v", i, ha, hb)
		}
	}
}

// TestRestoreAnswersIdentically round-trips every kind of index, after
// deletions, and checks the restored one answers exactly as the original
// and serialises to the same bytes.
func TestRestoreAnswersIdentically(t *testing.T) {
	vecs := clustered(12, 2000, 48)
	queries := clustered(13, 50, 48)
	cases := map[string]Index{
		"exact-int8": NewExact(48, Options{}), "exact-f32": NewExact(48, Options{Storage: F32}),
		"hnsw-int8": NewHNSW(48, Options{M: 8}), "hnsw-f32": NewHNSW(48, Options{Storage: F32, EfSearch: 20}),
		"auto-exact": New(48, Options{HNSWThreshold: 5000}), "auto-hnsw": New(48, Options{HNSWThreshold: 1000}),
	}
	for name, idx := range cases {
		t.Run(name, func(t *testing.T) {
			fill(t, idx, vecs)
			for i := 0; i < 2000; i += 7 {
				idx.Delete(uint64(i))
			}
			if a, ok := idx.(*Auto); ok {
				a.Wait()
				if a.UsingHNSW() != (name == "auto-hnsw") {
					t.Fatalf("UsingHNSW = %v", a.UsingHNSW())
				}
			}
			b1, err := Marshal(idx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(b1)
			if err != nil {
				t.Fatal(err)
			}
			if reflect.TypeOf(got) != reflect.TypeOf(idx) || got.Len() != idx.Len() {
				t.Fatalf("restored %T with %d keys, want %T with %d", got, got.Len(), idx, idx.Len())
			}
			sameResults(t, idx, got, append(queries, vecs[:50]...))
			b2, _ := Marshal(got)
			if !bytes.Equal(b1, b2) {
				t.Fatal("restored index serialises differently")
			}
			// Both go on identically after the restore.
			for i := 0; i < 2000; i += 7 {
				idx.Add(uint64(i), vecs[i])
				got.Add(uint64(i), vecs[i])
			}
			sameResults(t, idx, got, queries)
		})
	}
}

// TestTierEquivalence builds the int8 indexes under every SIMD tier: the
// integer kernels are exact, so the graphs and results must be identical
// to the byte.
func TestTierEquivalence(t *testing.T) {
	vecs := clustered(14, 3000, 384)
	queries := clustered(15, 30, 384)
	var want []byte
	var wantHits [][]Hit
	for _, tier := range simd.Tiers() {
		prev := simd.SetTier(tier)
		h := NewHNSW(384, Options{})
		fill(t, h, vecs)
		e := NewExact(384, Options{})
		fill(t, e, vecs)
		b, _ := h.MarshalBinary()
		var hits [][]Hit
		for _, q := range queries {
			hits = append(hits, h.Search(q, 10), e.Search(q, 10))
		}
		simd.SetTier(prev)
		if want == nil {
			want, wantHits = b, hits
			continue
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("tier %v built a different graph", tier)
		}
		if !reflect.DeepEqual(hits, wantHits) {
			t.Fatalf("tier %v answered differently", tier)
		}
	}
}

// TestAutoSwitchesUnderWrites crosses the threshold while adds and deletes
// keep coming, then checks the graph holds exactly the live keys.
func TestAutoSwitchesUnderWrites(t *testing.T) {
	vecs := clustered(16, 3000, 32)
	a := NewAuto(32, Options{HNSWThreshold: 1000})
	deleted := map[uint64]bool{}
	for i, v := range vecs {
		if err := a.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
		if i%5 == 4 {
			a.Delete(uint64(i - 3))
			deleted[uint64(i-3)] = true
		}
		if i%11 == 0 && !deleted[uint64(i/2)] {
			a.Add(uint64(i/2), vecs[i/2]) // replace, same vector
		}
	}
	a.Wait()
	if !a.UsingHNSW() {
		t.Fatal("still exact after Wait above the threshold")
	}
	if a.Len() != len(vecs)-len(deleted) {
		t.Fatalf("Len %d, want %d", a.Len(), len(vecs)-len(deleted))
	}
	for i, v := range vecs {
		hits := a.Search(v, 3)
		for _, h := range hits {
			if deleted[h.Key] {
				t.Fatalf("deleted key %d returned", h.Key)
			}
		}
		if !deleted[uint64(i)] && hits[0].Key != uint64(i) && hits[0].Score < 0.999 {
			t.Fatalf("key %d not found by its own vector: %v", i, hits)
		}
	}
	// Deleting below half the threshold returns to exact search.
	for i := range vecs[:2600] {
		a.Delete(uint64(i))
	}
	if a.UsingHNSW() {
		t.Fatalf("still HNSW with %d keys", a.Len())
	}
	if h := a.Search(vecs[2999], 1); h[0].Key != 2999 {
		t.Fatalf("after returning to exact: %v", h)
	}
}

func TestUnmarshalRejects(t *testing.T) {
	h := NewHNSW(8, Options{M: 4})
	fill(t, h, clustered(17, 50, 8))
	good, _ := h.MarshalBinary()
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := map[string][]byte{
		"empty":     nil,
		"magic":     mutate(func(b []byte) []byte { b[0] = 'x'; return b }),
		"version":   mutate(func(b []byte) []byte { b[4] = 2; return b }),
		"kind":      mutate(func(b []byte) []byte { b[5] = 9; return b }),
		"storage":   mutate(func(b []byte) []byte { b[6] = 0; return b }),
		"dim":       mutate(func(b []byte) []byte { b[8], b[9], b[10], b[11] = 0, 0, 0, 0; return b }),
		"huge n":    mutate(func(b []byte) []byte { b[44], b[45], b[46], b[47] = 0xff, 0xff, 0xff, 0x7f; return b }),
		"truncated": good[:len(good)-1],
		"trailing":  append(bytes.Clone(good), 0),
		"link id":   mutate(func(b []byte) []byte { b[len(b)-1] = 0xff; return b }),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Unmarshal(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unmarshal = %v, want ErrCorrupt", err)
			}
		})
	}
}

// seedIndexes returns small serialised indexes of every kind, the fuzz
// target's seeds.
func seedIndexes() [][]byte {
	var out [][]byte
	vecs := clustered(18, 40, 4)
	for _, idx := range []Index{
		NewExact(4, Options{}), NewExact(4, Options{Storage: F32}), NewHNSW(4, Options{M: 2}),
		NewHNSW(4, Options{Storage: F32, M: 3}), New(4, Options{HNSWThreshold: 30, M: 2}), NewHNSW(4, Options{}),
	} {
		for i, v := range vecs {
			idx.Add(uint64(i*7), v)
		}
		idx.Delete(14)
		if a, ok := idx.(*Auto); ok {
			a.Wait()
		}
		b, _ := Marshal(idx)
		out = append(out, b)
	}
	return out
}

func FuzzUnmarshal(f *testing.F) {
	for _, b := range seedIndexes() {
		f.Add(b)
	}
	q := []float32{0.5, -0.5, 0.5, 0.5}
	f.Fuzz(func(t *testing.T, b []byte) {
		idx, err := Unmarshal(b)
		// The same bytes in parts decode as the whole do.
		_, partsErr := UnmarshalParts(splitEvery(b, 1+len(b)%29))
		if (err == nil) != (partsErr == nil) {
			t.Fatalf("whole bytes: %v; in parts: %v", err, partsErr)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		if a, ok := idx.(*Auto); ok {
			a.Wait()
		}
		if idx.Dim() == len(q) {
			idx.Search(q, 5)
		}
		again, err := Marshal(idx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(again); err != nil {
			t.Fatalf("re-marshalled bytes rejected: %v", err)
		}
		if idx.Dim() == len(q) {
			idx.Add(99, q)
			idx.Delete(99)
			idx.Search(q, 5)
		}
	})
}

// TestWriteFuzzCorpus refreshes testdata/fuzz/FuzzUnmarshal from
// seedIndexes when ANN_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("ANN_WRITE_CORPUS") != "1" {
		t.Skip("set ANN_WRITE_CORPUS=1 to rewrite the seed corpus")
	}
	dir := "testdata/fuzz/FuzzUnmarshal"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, b := range seedIndexes() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(fmt.Sprintf("%s/seed-%d", dir, i), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
