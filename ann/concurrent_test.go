package ann

import (
	"reflect"
	"sync"
	"testing"
)

// TestConcurrentSearch runs searches from several goroutines at once (the
// vault's readers under its read lock) and checks every answer equals the
// one-at-a-time answer. Run with -race to check the pooled scratch.
func TestConcurrentSearch(t *testing.T) {
	vecs := clustered(20, 2000, 64)
	queries := clustered(21, 40, 64)
	auto := New(64, Options{HNSWThreshold: 1500})
	fill(t, auto, vecs)
	auto.(*Auto).Wait() // a swap mid-test would change the answers
	for name, idx := range map[string]Index{
		"exact": NewExact(64, Options{}), "hnsw": NewHNSW(64, Options{Storage: F32}), "auto": auto,
	} {
		t.Run(name, func(t *testing.T) {
			if idx != auto {
				fill(t, idx, vecs)
			}
			want := make([][]Hit, len(queries))
			for i, q := range queries {
				want[i] = idx.Search(q, 10)
			}
			var wg sync.WaitGroup
			errs := make(chan string, 8)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range 5 {
						for i := range queries {
							j := (i + g + r) % len(queries)
							if got := idx.Search(queries[j], 10); !reflect.DeepEqual(got, want[j]) {
								errs <- "concurrent answer differs"
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Fatal(e)
			}
		})
	}
}
