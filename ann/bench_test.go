package ann

import (
	"fmt"
	"testing"
)

// Search benchmarks over clustered 384-dim vectors. SetBytes counts the
// vector bytes an exact search streams, so MB/s reads as scan bandwidth.
var benchCache = map[string]Index{}

func benchIndex(b *testing.B, kind string, st Storage, n int) (Index, [][]float32) {
	b.Helper()
	queries := clustered(31, 256, 384)
	key := fmt.Sprint(kind, st, n)
	if idx, ok := benchCache[key]; ok {
		return idx, queries
	}
	var idx Index = NewExact(384, Options{Storage: st})
	if kind == "hnsw" {
		idx = NewHNSW(384, Options{Storage: st})
	}
	for i, v := range clustered(30, n, 384) {
		idx.Add(uint64(i), v)
	}
	benchCache[key] = idx
	return idx, queries
}

func BenchmarkExactSearch(b *testing.B) {
	for _, st := range []Storage{Int8, F32} {
		for _, n := range []int{1000, 20000} {
			b.Run(fmt.Sprintf("%v/n=%d", st, n), func(b *testing.B) {
				idx, queries := benchIndex(b, "exact", st, n)
				per := 384 + 4
				if st == F32 {
					per = 4 * 384
				}
				b.ReportAllocs()
				b.SetBytes(int64(n * per))
				i := 0
				for b.Loop() {
					idx.Search(queries[i%len(queries)], 10)
					i++
				}
			})
		}
	}
}

func BenchmarkHNSWSearch(b *testing.B) {
	for _, st := range []Storage{Int8, F32} {
		b.Run(fmt.Sprintf("%v/n=20000", st), func(b *testing.B) {
			idx, queries := benchIndex(b, "hnsw", st, 20000)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				idx.Search(queries[i%len(queries)], 10)
				i++
			}
		})
	}
}

// BenchmarkHNSWAdd replaces one key of a 5,000-node graph: a delete with
// its repair, then an insert, so the graph keeps its size.
func BenchmarkHNSWAdd(b *testing.B) {
	for _, st := range []Storage{Int8, F32} {
		b.Run(st.String(), func(b *testing.B) {
			h := NewHNSW(384, Options{Storage: st})
			for i, v := range clustered(32, 5000, 384) {
				h.Add(uint64(i), v)
			}
			extra := clustered(33, 256, 384)
			b.ReportAllocs()
			b.SetBytes(4 * 384)
			i := 0
			for b.Loop() {
				h.Add(1<<40, extra[i%len(extra)])
				i++
			}
		})
	}
}

// BenchmarkHNSWRestore reads back a 20,000-node int8 graph, as a vault's
// open does with its segment's index.
func BenchmarkHNSWRestore(b *testing.B) {
	idx, _ := benchIndex(b, "hnsw", Int8, 20000)
	blob, err := idx.(*HNSW).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(blob)))
	for b.Loop() {
		if _, err := Unmarshal(blob); err != nil {
			b.Fatal(err)
		}
	}
}
