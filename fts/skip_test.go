package fts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// answer is everything a Search result tells a caller: the terms, the
// mode, the pool at several sizes and every hit with its rank.
type answer struct {
	Terms     []QueryTerm
	Mode      Mode
	TotalInfo float64
	// Hits are the hits as the read left them, before any Top: their
	// order is what Holding and the pool's selection follow.
	Hits    []Hit
	Tops    [][]Hit
	All     []Found
	Few     []Found
	Top200  []Hit
	Holding [][]Hit
}

// answerOf runs q with the seeking read of the postings and the keyed
// orders (fast), or with the exhaustive read and the field-by-field
// comparisons.
func answerOf(x *Index, q string, fast bool) answer {
	defer func(skip, keyed bool) { skipPostings, keyedOrder = skip, keyed }(skipPostings, keyedOrder)
	skipPostings, keyedOrder = fast, fast
	r := x.Search(q)
	a := answer{Terms: r.Terms, Mode: r.Mode, TotalInfo: r.TotalInfo, Hits: cloneHits(r.hits)}
	for _, n := range []int{1, 3, 10, 200, r.Len()} {
		a.Tops = append(a.Tops, cloneHits(r.Top(n)))
	}
	docs := x.docs.appendDocs(nil)
	// A search's own ask first (a few hundred records, before any pool
	// is sorted), then every record.
	rs := x.Search(q)
	few := make([]uint32, 0, 400)
	for i := 0; i < len(docs) && len(few) < cap(few); i += 1 + len(docs)/cap(few) {
		few = append(few, docs[i])
	}
	a.Few = rs.FindAll(few)
	a.Top200 = cloneHits(rs.Top(200))
	a.All = r.FindAll(docs)
	for i := range r.Terms {
		h := r.Holding(i)
		slices.SortFunc(h, func(p, q Hit) int { return cmpU32(p.Doc, q.Doc) })
		a.Holding = append(a.Holding, h)
	}
	return a
}

// cloneHits copies hits, nil when there are none (an empty list compares
// equal whichever buffer it came from).
func cloneHits(hs []Hit) []Hit {
	if len(hs) == 0 {
		return nil
	}
	return slices.Clone(hs)
}

func sameAnswer(t interface {
	Helper()
	Fatalf(string, ...any)
}, x *Index, q string) {
	t.Helper()
	want, got := answerOf(x, q, false), answerOf(x, q, true)

	if !reflect.DeepEqual(want, got) {
		for i := range want.Tops {
			if !reflect.DeepEqual(want.Tops[i], got.Tops[i]) {
				t.Fatalf("query %q: top %d differs:\nexhaustive %+v\nseeking    %+v", q, len(want.Tops[i]), want.Tops[i], got.Tops[i])
			}
		}
		t.Fatalf("query %q: seeking read differs from the exhaustive one:\nexhaustive %+v\nseeking    %+v", q, want, got)
	}
}

// TestSkippingMatchesExhaustive: on random corpora (a small vocabulary, so
// that common words pass the informative share and pass 1 has long lists
// to seek in) and random queries (with misspellings, variants and words
// the corpus lacks), the seeking read gives exactly the exhaustive read's
// answer: the same terms, mode, pool, hits, ranks and p_lex bit for bit.
func TestSkippingMatchesExhaustive(t *testing.T) {
	vocab := []string{"the", "a", "of", "is", "and", "postgres", "port", "runs", "running", "ran",
		"doctor", "doctors", "visit", "visited", "lena", "berlin", "5432", "coffee", "every", "morning",
		"commit_9f3c2e1a", "grafana", "metrics", "children", "child", "went", "go"}
	extra := []string{"postgress", "9f3c2e", "doctr", "zebra", "the", "is", "of", "visits", "metric"}
	rapid.Check(t, func(t *rapid.T) {
		x := New()
		weights := rapid.SliceOfN(rapid.IntRange(1, 30), len(vocab), len(vocab)).Draw(t, "weights")
		var pick []string
		for i, w := range weights {
			for range w {
				pick = append(pick, vocab[i])
			}
		}
		docs := rapid.IntRange(1, 120).Draw(t, "docs")
		for d := range docs {
			ws := rapid.SliceOfN(rapid.SampledFrom(pick), 1, 12).Draw(t, fmt.Sprint("doc", d))
			x.Add(uint32(rapid.IntRange(0, 2*docs).Draw(t, "id")), joinWords(ws))
		}
		for _, d := range rapid.SliceOfN(rapid.IntRange(0, 2*docs), 0, 5).Draw(t, "deletes") {
			x.Delete(uint32(d))
		}
		q := rapid.SliceOfN(rapid.SampledFrom(append(slices.Clone(vocab), extra...)), 1, 8).Draw(t, "query")
		// Windows of one to four bitmap words, or one spanning the
		// index: the windowed read must not depend on where they cut.
		defer func(w uint32) { windowSlots = w }(windowSlots)
		windowSlots = rapid.SampledFrom([]uint32{64, 128, 256, 1 << 14}).Draw(t, "window")
		sameAnswer(t, x, joinWords(q))
	})
}

// TestSkipping20k: the same comparison on a 20,000-record generated index
// (the benchmark corpus) with 300 queries of 1 to 20 words, misspellings
// among them: the seeking read and the keyed Top and FindAll give the
// exhaustive, field-by-field answer hit for hit.
func TestSkipping20k(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-record index")
	}
	x, c := bench20k()
	rng := rand.New(rand.NewPCG(9, 9))
	large := 0 // queries finding more hits than a pool and a widening hold
	defer func(w uint32) { windowSlots = w }(windowSlots)
	for i := range 300 {
		q := c.query(1 + rng.IntN(20))
		if i%10 == 0 {
			q += " " + c.words[rng.IntN(2000)] + "xq"
		}
		// Windows from one bitmap word to the whole index.
		windowSlots = []uint32{64, 640, 4096, 1 << 14, 1 << 20}[i%5]
		sameAnswer(t, x, q)
		if x.Search(q).Len() > 4*200 {
			large++
		}
	}
	// The keyed orders matter where the hits are many: the comparison
	// must have read such queries.
	if large < 50 {
		t.Fatalf("only %d of 300 queries found over 800 hits", large)
	}
}

// TestPostingCursorSeek checks the galloping seek against a linear scan
// for every target in order, on lists of every length up to 70.
func TestPostingCursorSeek(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 70 {
		list := make([]uint32, 0, n)
		v := uint32(0)
		for range n {
			v += 1 + uint32(rng.IntN(4))
			list = append(list, v)
		}
		cur := postingCursor{slots: list}
		for s := uint32(0); s <= v+2; s += 1 + uint32(rng.IntN(3)) {
			want := len(list)
			for i, e := range list {
				if e >= s {
					want = i
					break
				}
			}
			got, ok := cur.seek(s)
			if got != want || ok != (want < len(list) && list[want] == s) {
				t.Fatalf("len %d seek %d: got %d %v, want %d", n, s, got, ok, want)
			}
		}
	}
}

func joinWords(ws []string) string {
	out := ""
	for i, w := range ws {
		if i > 0 {
			out += " "
		}
		out += w
	}
	return out
}

// TestSplitReadMatches: reading the two halves of the slots on two
// goroutines (splitPostings) gives what one read gives, hit for hit and
// in the same order (the order Holding and the pool's ties follow), and
// FindAll counting two halves of the hits (splitCount) the same ranks, on
// the 20,000-record generated index with 200 queries, misspellings among
// them, and on a small index whose records all share words.
func TestSplitReadMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-record index")
	}
	defer func(n, m int) { splitPostings, splitCount = n, m }(splitPostings, splitCount)
	x, c := bench20k()
	small := New()
	for i := range 300 {
		small.Add(uint32(i), fmt.Sprintf("lantern %d in the shed of item%d near the lantern", i, i%7))
	}
	rng := rand.New(rand.NewPCG(29, 29))
	split := 0
	for i := range 200 {
		q := c.query(1 + rng.IntN(20))
		if i%10 == 0 {
			q += " " + c.words[rng.IntN(2000)] + "xq"
		}
		ix := x
		if i%20 == 1 {
			ix, q = small, "which item3 lantern is in the shed"
		}
		splitPostings, splitCount = math.MaxInt, math.MaxInt
		one := ix.Search(q)
		hitsOne := slices.Clone(one.hits)
		wantAnswer := answerOf(ix, q, true)
		splitPostings, splitCount = 0, 0
		two := ix.Search(q)
		if len(ix.info) >= 2*splitAlign && two.Len() > 0 {
			split++
		}
		if !reflect.DeepEqual(two.hits, hitsOne) {
			t.Fatalf("query %q: the split read found %d hits, one read %d, or in another order", q, two.Len(), len(hitsOne))
		}
		if got := answerOf(ix, q, true); !reflect.DeepEqual(got, wantAnswer) {
			t.Fatalf("query %q: the split read answers differently", q)
		}
	}
	if split < 150 {
		t.Fatalf("only %d of 200 queries were read split", split)
	}
}
