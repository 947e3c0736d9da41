package search

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestReusedScratchRanksAsFresh: reusing one search's candidate pool and
// literal hits for the next (reuseScratch), and searching the first
// vector pool beside the literal channel (concurrentChannels), change no
// result. On a
// 20,000-record corpus (HNSW), 300 queries in four modes (the default
// cut, literal only, top_k with a filter that widens the pools, explain)
// return exactly what sequential searches with fresh allocations return, also when
// run twice over and from several goroutines at once.
func TestReusedScratchRanksAsFresh(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	e, vecs, g := engineOf(n)
	type query struct {
		name string
		q    Query
	}
	var qs []query
	for i := range 300 {
		q := Query{Text: g.text(2 + g.rng.IntN(7)), Vector: g.near(vecs[g.rng.IntN(len(vecs))]), Now: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
		switch i % 4 {
		case 1:
			q.Vector = nil
		case 2:
			q.TopK = 1 + i%12
			q.Filter = func(doc uint32) bool { return doc%7 == 0 }
		case 3:
			q.Explain = true
		}
		qs = append(qs, query{fmt.Sprintf("query %d %q (mode %d)", i, q.Text, i%4), q})
	}
	search := func(q Query) []Result {
		res, err := e.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	reuseScratch, concurrentChannels = false, false
	fresh := make([][]Result, len(qs))
	nonEmpty := 0
	for i, q := range qs {
		fresh[i] = search(q.q)
		if len(fresh[i]) > 0 {
			nonEmpty++
		}
	}
	reuseScratch, concurrentChannels = true, true
	if nonEmpty < len(qs)/2 {
		t.Fatalf("only %d of %d queries found anything: the comparison would say little", nonEmpty, len(qs))
	}
	for pass := range 2 {
		for i, q := range qs {
			if got := search(q.q); !reflect.DeepEqual(got, fresh[i]) {
				t.Fatalf("pass %d, %s: reused scratch returned\n%+v\nfresh allocations\n%+v", pass, q.name, got, fresh[i])
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(qs))
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(qs); i += 4 {
				res, err := e.Search(qs[i].q)
				if err != nil || !reflect.DeepEqual(res, fresh[i]) {
					errs <- fmt.Sprintf("concurrent, %s: %v", qs[i].name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}
