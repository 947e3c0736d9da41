package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/rank"
	"github.com/compartment/compartment/simd"
)

const dim = 8

// unit returns v scaled to length 1.
func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(n))
	}
	return out
}

// axis is the unit vector along dimension i, tilted by eps towards the
// last dimension so no two test vectors are exactly equal.
func axis(i int, eps float32) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	v[dim-1] += eps
	return unit(v...)
}

func mustAdd(t *testing.T, e *Engine, doc uint32, text string, windows [][]float32, meta DocMeta) {
	t.Helper()
	if meta.Importance == 0 {
		meta.Importance = 0.5
	}
	if err := e.Add(doc, text, windows, meta); err != nil {
		t.Fatalf("Add(%d): %v", doc, err)
	}
}

func mustSearch(t *testing.T, e *Engine, q Query) []Result {
	t.Helper()
	res, err := e.Search(q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	return res
}

func docsOf(res []Result) []uint32 {
	out := make([]uint32, len(res))
	for i, r := range res {
		out[i] = r.Doc
	}
	return out
}

// fill adds n literal-only records about nothing the tests ask for.
func fill(t *testing.T, e *Engine, from uint32, n int) {
	for i := range n {
		mustAdd(t, e, from+uint32(i), fmt.Sprintf("an unrelated note %d about gardening and weather", i), nil, DocMeta{Seq: uint64(from) + uint64(i)})
	}
}

func TestEmptyQueryIsAnError(t *testing.T) {
	e := New(0)
	fill(t, e, 0, 3)
	for _, q := range []string{"", "   \n\t"} {
		if _, err := e.Search(Query{Text: q}); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Search(%q): err %v, want ErrEmptyQuery", q, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	e := New(dim)
	if _, err := e.Search(Query{Text: "x", Vector: make([]float32, 3)}); !errors.Is(err, ErrDimension) {
		t.Errorf("short query vector: err %v", err)
	}
	if _, err := e.Search(Query{Text: "x", TopK: -1}); err == nil {
		t.Errorf("negative top_k accepted")
	}
	if err := e.Add(1, "x", [][]float32{make([]float32, 3)}, DocMeta{}); !errors.Is(err, ErrDimension) {
		t.Errorf("short window: err %v", err)
	}
	if err := e.Add(1, "x", make([][]float32, MaxWindows+1), DocMeta{}); err == nil {
		t.Errorf("too many windows accepted")
	}
	if e.Len() != 0 {
		t.Errorf("failed adds left %d records", e.Len())
	}
	if err := New(0).Add(1, "x", [][]float32{axis(0, 0)}, DocMeta{}); !errors.Is(err, ErrDimension) {
		t.Errorf("vectors into a literal-only engine: err %v", err)
	}
}

func TestLiteralRelevanceCut(t *testing.T) {
	e := New(0)
	fill(t, e, 100, 40)
	mustAdd(t, e, 1, "Booked a kayak rental at Lake Tahoe for Saturday", nil, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "The kayak needs a new paddle", nil, DocMeta{Seq: 2})
	res := mustSearch(t, e, Query{Text: "kayak rental", Explain: true})
	if len(res) == 0 || res[0].Doc != 1 {
		t.Fatalf("kayak rental: %v, want doc 1 first", docsOf(res))
	}
	if res[0].Match == rank.MatchWeak {
		t.Errorf("doc 1 holds every query word and no other record does, yet it is %s (confidence %v)", res[0].Match, res[0].Confidence)
	}
	for _, r := range res[1:] {
		if r.Confidence >= res[0].Confidence {
			t.Errorf("doc %d is as confident (%v) as the one that holds every word (%v)", r.Doc, r.Confidence, res[0].Confidence)
		}
	}
	// A question the vault knows nothing about returns nothing.
	if res := mustSearch(t, e, Query{Text: "quantum chromodynamics lecture"}); len(res) != 0 {
		t.Errorf("unrelated query returned %v", docsOf(res))
	}
	// Only common words: no error; the records holding all of them match
	// the query literally (AND), so they come back, equally.
	if res := mustSearch(t, e, Query{Text: "an about and", Explain: true}); len(res) == 0 || res[0].Explain.Mode != "and" {
		t.Errorf("common-words query returned %v", docsOf(res))
	}
	// With top_k exactly that many.
	if res := mustSearch(t, e, Query{Text: "an about and", TopK: 5}); len(res) != 5 {
		t.Errorf("common words with top_k 5: %d results", len(res))
	}
	// OR over informative terms only: common words plus an unknown word
	// find nothing relevant, and no error.
	if res := mustSearch(t, e, Query{Text: "an about zeppelins"}); len(res) != 0 {
		t.Errorf("common words and an unknown one returned %v", docsOf(res))
	}
}

func TestTopKExactly(t *testing.T) {
	e := New(0)
	for i := range 150 {
		mustAdd(t, e, uint32(i), fmt.Sprintf("apple harvest log entry %d", i), nil, DocMeta{Seq: uint64(i)})
	}
	fill(t, e, 1000, 2000)
	for _, k := range []int{1, 7, 100, 150} {
		res := mustSearch(t, e, Query{Text: "apple", TopK: k})
		if len(res) != k {
			t.Errorf("top_k %d returned %d", k, len(res))
		}
		for i := 1; i < len(res); i++ {
			if res[i].Score > res[i-1].Score {
				t.Fatalf("top_k %d: results out of order at %d", k, i)
			}
		}
	}
	// More than match: the 150 with evidence first, then others, still
	// exactly top_k while the scope holds that many.
	res := mustSearch(t, e, Query{Text: "apple", TopK: 500})
	if len(res) != 500 || res[149].Score <= 0 || res[150].Score != 0 {
		t.Errorf("top_k 500 returned %d (151st score %v), want the 150 that match then 350 more at 0", len(res), res[min(150, len(res)-1)].Score)
	}
	// A scope of four memories, top_k 3, and a query only one matches.
	small := New(0)
	for i, text := range []string{"Max moved the CRM to Postgres.", "The boiler is serviced in May.", "Saga plays violin.", "Port 5433 is staging."} {
		mustAdd(t, small, uint32(i), text, nil, DocMeta{Seq: uint64(i)})
	}
	if res := mustSearch(t, small, Query{Text: "violin", TopK: 3}); len(res) != 3 || res[0].Doc != 2 {
		t.Errorf("top_k 3 over 4 memories: %+v, want 3 with doc 2 first", res)
	}
	if res := mustSearch(t, small, Query{Text: "violin", TopK: 9}); len(res) != 4 {
		t.Errorf("top_k 9 over 4 memories returned %d, want all 4", len(res))
	}
	if res := mustSearch(t, e, Query{Text: "apple"}); len(res) != rank.DefaultResults {
		t.Errorf("default answer returned %d, want the budget %d", len(res), rank.DefaultResults)
	}
}

// A newer memory outranks an otherwise identical older one, on the
// semantic channel only; literal evidence does not age.
func TestVaultShareAging(t *testing.T) {
	e := New(dim)
	v := axis(0, 0.1)
	mustAdd(t, e, 1, "Prefers the window seat", [][]float32{v}, DocMeta{Namespace: "a", Seq: 10})
	mustAdd(t, e, 2, "Prefers the window seat", [][]float32{v}, DocMeta{Namespace: "a", Seq: 20})
	res := mustSearch(t, e, Query{Text: "zzz", Vector: v, Explain: true})
	if !slices.Equal(docsOf(res), []uint32{2, 1}) {
		t.Fatalf("semantic: order %v, want the newer (2) first", docsOf(res))
	}
	if res[0].Explain.Share != 0 || res[1].Explain.Share != 0.5 {
		t.Errorf("shares %v and %v, want 0 and 0.5", res[0].Explain.Share, res[1].Explain.Share)
	}
	if res[1].Unaged <= res[1].Score {
		t.Errorf("the older record was not aged: unaged %v, score %v", res[1].Unaged, res[1].Score)
	}
	// Literal only: both keep their evidence, aging changes nothing.
	res = mustSearch(t, e, Query{Text: "window seat", Explain: true})
	for _, r := range res {
		if r.Explain.Evidence != r.Unaged || r.Score != r.Unaged {
			t.Errorf("literal-only doc %d aged: evidence %v unaged %v score %v", r.Doc, r.Explain.Evidence, r.Unaged, r.Score)
		}
	}
}

// The share counts the searched namespaces' own records, never reference
// facts, which are not aged either.
func TestSharePopulation(t *testing.T) {
	e := New(dim)
	v := axis(1, 0.1)
	mustAdd(t, e, 1, "old fact in a", [][]float32{v}, DocMeta{Namespace: "a", Seq: 1})
	for i := range 9 {
		mustAdd(t, e, uint32(10+i), "newer in b", [][]float32{axis(2, 0.1)}, DocMeta{Namespace: "b", Seq: uint64(10 + i)})
	}
	for i := range 50 {
		mustAdd(t, e, uint32(100+i), "reference fact", [][]float32{axis(3, 0.1)}, DocMeta{Namespace: "a", Seq: uint64(100 + i), Reference: true})
	}
	mustAdd(t, e, 2, "reference about seats", [][]float32{v}, DocMeta{Namespace: "a", Seq: 0, Reference: true})
	share := func(ns []string, doc uint32) float64 {
		for _, r := range mustSearch(t, e, Query{Text: "zzz", Vector: v, Namespaces: ns, Explain: true}) {
			if r.Doc == doc {
				return r.Explain.Share
			}
		}
		t.Fatalf("doc %d not found", doc)
		return 0
	}
	if got := share([]string{"a"}, 1); got != 0 {
		t.Errorf("in namespace a alone doc 1 is the newest: share %v, want 0", got)
	}
	if got := share(nil, 1); math.Abs(got-0.9) > 1e-12 {
		t.Errorf("across every namespace 9 of 10 were written later: share %v, want 0.9", got)
	}
	if got := share(nil, 2); got != 0 {
		t.Errorf("a reference fact was aged: share %v", got)
	}
}

// The share's bisection counts exactly the later writes, duplicates of
// one write order and the ends of the range included, against a count
// of every write.
func TestShareCountsLaterWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		p := newPopulation()
		var all []DocMeta
		for range rng.IntN(40) {
			m := DocMeta{Namespace: []string{"a", "b", "c"}[rng.IntN(3)], Seq: uint64(rng.IntN(30))}
			p.add(m)
			all = append(all, m)
		}
		for _, ns := range [][]string{nil, {"a"}, {"b", "c"}} {
			for seq := uint64(0); seq <= 31; seq++ {
				total, after := 0, 0
				for _, m := range all {
					if ns == nil || slices.Contains(ns, m.Namespace) {
						total++
						if m.Seq > seq {
							after++
						}
					}
				}
				want := 0.0
				if total > 0 {
					want = float64(after) / float64(total)
				}
				if got := p.share(seq, ns); got != want {
					t.Fatalf("share(%d, %v) = %v, want %v (%v)", seq, ns, got, want, all)
				}
			}
		}
	}
}

// Filters run after ranking; when they leave too few results the pools
// widen (×4, up to three times).
func TestFilterWidensPool(t *testing.T) {
	e := New(0)
	for i := range 1000 {
		mustAdd(t, e, uint32(i), fmt.Sprintf("quarterly report %d", i), nil, DocMeta{Seq: uint64(i)})
	}
	fill(t, e, 5000, 9000) // keeps "report" informative
	wanted := func(doc uint32) bool { return doc%250 == 249 }
	res := mustSearch(t, e, Query{Text: "report", TopK: 3, Filter: wanted})
	if len(res) != 3 {
		t.Fatalf("top_k 3 with a sparse filter returned %v", docsOf(res))
	}
	for _, r := range res {
		if !wanted(r.Doc) {
			t.Errorf("filter let doc %d through", r.Doc)
		}
	}
	res = mustSearch(t, e, Query{Text: "report", Filter: wanted})
	if got := docsOf(res); len(got) != 4 {
		t.Fatalf("relevance cut with a sparse filter returned %v, want the 4 accepted", got)
	}
	// Past three widenings (200·4³ = 12,800) the pool stops growing.
	res = mustSearch(t, e, Query{Text: "report", TopK: 5, Filter: func(d uint32) bool { return d == 999 }})
	if !slices.Equal(docsOf(res), []uint32{999}) {
		t.Errorf("single accepted record: %v", docsOf(res))
	}
}

func TestPriorNeverSurfacesNonMatch(t *testing.T) {
	e := New(dim)
	mustAdd(t, e, 1, "Likes green tea", [][]float32{axis(0, 0.1)}, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "Strong opinion on tabs versus spaces", [][]float32{axis(4, 0.1)},
		DocMeta{Seq: 2, Importance: 1, Opinion: true, Affirmed: time.Now()})
	fill(t, e, 100, 20)
	for _, k := range []int{0, 10} {
		res := mustSearch(t, e, Query{Text: "green tea", Vector: axis(0, 0.1), TopK: k})
		if slices.Contains(docsOf(res), 2) {
			t.Errorf("top_k %d: an important, fresh opinion that matched nothing came back: %v", k, docsOf(res))
		}
	}
}

// A literal match on a term unique to one memory outranks ten paraphrases
// whose vectors sit on the query.
func TestUniqueLiteralOutranksParaphrases(t *testing.T) {
	e := New(dim)
	q := axis(0, 0.05)
	for i := range 10 {
		mustAdd(t, e, uint32(10+i), fmt.Sprintf("fixed the flaky deploy, take %d", i),
			[][]float32{axis(0, 0.05+float32(i)*0.001)}, DocMeta{Seq: uint64(100 + i)})
	}
	mustAdd(t, e, 1, "the deploy fix landed as commit 9f3c2a1b7d", [][]float32{axis(5, 0)}, DocMeta{Seq: 1})
	fill(t, e, 1000, 5)
	for _, k := range []int{0, 3} {
		res := mustSearch(t, e, Query{Text: "9f3c2a1b7d", Vector: q, TopK: k, Explain: true})
		if len(res) == 0 || res[0].Doc != 1 {
			t.Fatalf("top_k %d: %v, want the commit's memory first", k, docsOf(res))
		}
		if res[0].Explain.PLex != rank.LiteralCap || len(res[0].Explain.Terms) == 0 {
			t.Errorf("explanation %+v lacks the conclusive literal match", res[0].Explain)
		}
	}
}

func TestWindowsBestWindowAndRemove(t *testing.T) {
	e := New(dim)
	mustAdd(t, e, 7, "a long memory", [][]float32{axis(1, 0), axis(2, 0), axis(3, 0.05)}, DocMeta{Seq: 1})
	mustAdd(t, e, 8, "short", [][]float32{axis(4, 0)}, DocMeta{Seq: 2})
	res := mustSearch(t, e, Query{Text: "zzz", Vector: axis(3, 0.05), Explain: true})
	if len(res) != 1 || res[0].Doc != 7 || res[0].Explain.Window != 2 || res[0].Explain.Cosine < 0.95 {
		t.Fatalf("best window: %+v", res)
	}
	if !e.Remove(7) || e.Remove(7) {
		t.Fatalf("Remove reported wrongly")
	}
	if n := e.vec.Len(); n != 1 {
		t.Errorf("after removing the 3-window record the vector index holds %d, want 1", n)
	}
	// Replacing a record replaces its windows.
	mustAdd(t, e, 8, "short", [][]float32{axis(5, 0), axis(6, 0)}, DocMeta{Seq: 3})
	if n := e.vec.Len(); n != 2 {
		t.Errorf("after replacing record 8 the vector index holds %d, want 2", n)
	}
}

func TestExplain(t *testing.T) {
	e := New(dim)
	mustAdd(t, e, 1, "Alice recommended the Dune novel", [][]float32{axis(0, 0.2)}, DocMeta{Seq: 1, Importance: 0.9})
	fill(t, e, 100, 30)
	res := mustSearch(t, e, Query{Text: "dune novel", Vector: axis(0, 0.25), Explain: true})
	if len(res) == 0 || res[0].Doc != 1 {
		t.Fatalf("results %v", docsOf(res))
	}
	x := res[0].Explain
	if x.Cosine < 0.9 || x.PVec != rank.SpecCalibration.PVec(x.Cosine) || x.RankVec != 1 || x.RankLex != 1 || x.Mode != "and" {
		t.Errorf("explanation %+v", x)
	}
	if len(x.Terms) != 2 || x.Terms[0].Info != rank.TermInfo(31, 1) {
		t.Errorf("terms %+v, want dune and novel with I = ln(31/2)", x.Terms)
	}
	if math.Abs(x.ImportancePrior-rank.ImportancePrior(0.9)) > 1e-12 || x.OpinionPrior != 0 {
		t.Errorf("priors %v %v", x.ImportancePrior, x.OpinionPrior)
	}
	if want := rank.Final(x.Evidence, x.ImportancePrior, x.OpinionPrior); res[0].Score != want {
		t.Errorf("score %v, want %v", res[0].Score, want)
	}
}

func TestSnapshotRestore(t *testing.T) {
	e := New(dim)
	meta := map[uint32]DocMeta{}
	for i := range 30 {
		m := DocMeta{Namespace: "main", Seq: uint64(i), Importance: 0.5}
		mustAdd(t, e, uint32(i), fmt.Sprintf("note %d on topic %d", i, i%4), [][]float32{axis(i%dim, float32(i)/100)}, m)
		meta[uint32(i)] = m
	}
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(dim, snap, meta, Options{})
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	q := Query{Text: "topic 3", Vector: axis(3, 0.1), TopK: 10}
	a, b := mustSearch(t, e, q), mustSearch(t, r, q)
	if !slices.Equal(a, b) {
		t.Fatalf("restored engine answers differently:\n%v\n%v", a, b)
	}
	delete(meta, 3)
	if _, err := Restore(dim, snap, meta, Options{}); err == nil {
		t.Errorf("Restore accepted metadata missing a record")
	}
	if _, err := Restore(dim+1, snap, map[uint32]DocMeta{}, Options{}); err == nil {
		t.Errorf("Restore accepted the wrong dimension")
	}
}

// AttachMetaDocs, the doc-ordered form an open uses, gives the engine
// Restore gives, and refuses docs out of order, twice, or not matching
// the metadata.
func TestAttachMetaDocs(t *testing.T) {
	e := New(dim)
	meta := map[uint32]DocMeta{}
	var docs []uint32
	var metas []DocMeta
	for i := range 30 {
		m := DocMeta{Namespace: []string{"main", "work"}[i%2], Seq: uint64(i), Importance: float64(i%5) / 4}
		doc := uint32(3 * i) // with gaps, as after forgets
		mustAdd(t, e, doc, fmt.Sprintf("note %d on topic %d", i, i%4), [][]float32{axis(i%dim, float32(i)/100)}, m)
		meta[doc] = m
		docs, metas = append(docs, doc), append(metas, m)
	}
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Restore(dim, snap, meta, Options{})
	if err != nil {
		t.Fatal(err)
	}
	restore := func(docs []uint32, metas []DocMeta) (*Engine, error) {
		r, err := RestoreIndexes(dim, snap, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r, r.AttachMetaDocs(docs, metas)
	}
	got, err := restore(docs, metas)
	if err != nil {
		t.Fatalf("AttachMetaDocs: %v", err)
	}
	for _, q := range []Query{{Text: "topic 3", Vector: axis(3, 0.1), TopK: 10}, {Text: "note", Vector: axis(1, 0.2), TopK: 30, Namespaces: []string{"work"}}} {
		if a, b := mustSearch(t, want, q), mustSearch(t, got, q); !slices.Equal(a, b) {
			t.Fatalf("%+v: answers differ from Restore's:\n%v\n%v", q, a, b)
		}
	}
	swapped := slices.Clone(docs)
	swapped[4], swapped[5] = swapped[5], swapped[4]
	twice := slices.Clone(docs)
	twice[5] = twice[4]
	for name, c := range map[string]struct {
		docs  []uint32
		metas []DocMeta
	}{
		"out of order":  {swapped, metas},
		"a doc twice":   {twice, metas},
		"one meta less": {docs, metas[:len(metas)-1]},
		"one doc less":  {docs[1:], metas[1:]},
		"unknown doc":   {append(slices.Clone(docs[:len(docs)-1]), 1000), metas},
	} {
		if _, err := restore(c.docs, c.metas); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Searches run concurrently with one writer (go test -race checks the
// locking).
func TestConcurrentSearchWithWriter(t *testing.T) {
	e := New(dim)
	fill(t, e, 1000, 50)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			doc := uint32(i % 40)
			if i%3 == 2 {
				e.Remove(doc)
				continue
			}
			_ = e.Add(doc, fmt.Sprintf("concurrent note %d", i), [][]float32{axis(i%dim, 0.1)}, DocMeta{Seq: uint64(i)})
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if _, err := e.Search(Query{Text: "concurrent note", Vector: axis(i%dim, 0.1), TopK: 5}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// The literal pool is chosen by evidence (p_lex), not by BM25: a long
// record holding every query term is a candidate even when 300 short
// records out-score it on BM25.
func TestLiteralPoolByEvidence(t *testing.T) {
	e := New(0)
	fill(t, e, 10000, 5000)
	for i := range 300 {
		mustAdd(t, e, uint32(i), "alpha beta", nil, DocMeta{Seq: uint64(i)})
	}
	long := "alpha beta gamma " + strings.Repeat("padding words about nothing ", 700)
	mustAdd(t, e, 999, long, nil, DocMeta{Seq: 999})
	for _, k := range []int{1, 5} {
		res := mustSearch(t, e, Query{Text: "alpha beta gamma delta", TopK: k, Explain: true}) // no delta: OR
		if len(res) == 0 || res[0].Doc != 999 {
			t.Fatalf("top_k %d: %v, want the record holding all three terms first", k, docsOf(res))
		}
		if res[0].Explain.RankLex <= 200 {
			t.Errorf("the long record's BM25 rank is %d; the test wants it beyond the first pool", res[0].Explain.RankLex)
		}
	}
}

// AddBatch (how a vault is opened) must index exactly what Add one record
// at a time does.
func TestAddBatchMatchesAdd(t *testing.T) {
	one, batch, quant := New(dim), New(dim), New(dim)
	var docs, qdocs []Doc
	for i := range 40 {
		d := Doc{ID: uint32(i), Text: fmt.Sprintf("note %d about %s", i, []string{"ports", "databases", "gardens", "trains"}[i%4]),
			Windows: [][]float32{axis(i%(dim-1), float32(i)/100)}, Meta: DocMeta{Namespace: "main", Seq: uint64(i + 1), Importance: 0.5}}
		docs = append(docs, d)
		mustAdd(t, one, d.ID, d.Text, d.Windows, d.Meta)
		q := make([]int8, dim)
		scale := simd.QuantizeI8(q, d.Windows[0])
		qdocs = append(qdocs, Doc{ID: d.ID, Text: d.Text, Int8: [][]int8{q}, Scales: []float32{scale}, Meta: d.Meta})
	}
	if err := batch.AddBatch(docs); err != nil {
		t.Fatal(err)
	}
	if err := quant.AddBatch(qdocs); err != nil {
		t.Fatal(err)
	}
	if err := quant.AddBatch([]Doc{{ID: 98, Text: "bad", Int8: [][]int8{{1, 2}}, Scales: []float32{1}}}); !errors.Is(err, ErrDimension) {
		t.Fatalf("bad int8 window accepted: %v", err)
	}
	if err := batch.AddBatch([]Doc{{ID: 99, Text: "bad", Windows: [][]float32{{1}}}}); !errors.Is(err, ErrDimension) {
		t.Fatalf("bad window accepted: %v", err)
	}
	for _, q := range []Query{{Text: "databases", Vector: axis(1, 0)}, {Text: "note 7 trains", TopK: 5}, {Text: "gardens", Vector: axis(2, 0.02), TopK: 10}} {
		a, b, c := mustSearch(t, one, q), mustSearch(t, batch, q), mustSearch(t, quant, q)
		if fmt.Sprint(docsOf(a)) != fmt.Sprint(docsOf(b)) || fmt.Sprint(docsOf(a)) != fmt.Sprint(docsOf(c)) {
			t.Errorf("%q: Add gives %v, AddBatch %v, AddBatch int8 %v", q.Text, docsOf(a), docsOf(b), docsOf(c))
		}
	}
	if batch.Len() != 40 {
		t.Errorf("Len %d", batch.Len())
	}
}

// Nearest is what a store's near-duplicate check asks: the records nearest
// a vector by their best window, filtered, best first.
func TestNearest(t *testing.T) {
	e := New(dim)
	for i := range 30 {
		ns := "a"
		if i%2 == 1 {
			ns = "b"
		}
		mustAdd(t, e, uint32(i), fmt.Sprintf("note %d", i), [][]float32{axis(i%(dim-1), 0.01), axis((i+1)%(dim-1), 0.01)}, DocMeta{Namespace: ns, Seq: uint64(i + 1)})
	}
	got, err := e.Nearest(axis(3, 0.01), 2, func(doc uint32) bool { return doc%2 == 1 })
	if err != nil {
		t.Fatal(err)
	}
	// Docs 3 (first window) and 2 (second window) lie on axis 3; only odd
	// docs pass the filter.
	if len(got) != 2 || got[0].Doc != 3 || got[0].Cos < 0.99 {
		t.Fatalf("nearest: %+v", got)
	}
	for _, n := range got {
		if n.Doc%2 != 1 {
			t.Fatalf("filtered-out doc %d returned", n.Doc)
		}
	}
	if _, err := e.Nearest(make([]float32, dim-1), 1, nil); !errors.Is(err, ErrDimension) {
		t.Fatalf("wrong dimension: %v", err)
	}
	if got, _ := New(0).Nearest(nil, 3, nil); got != nil {
		t.Fatalf("literal-only engine: %v", got)
	}
}

// Either channel alone can establish relevance: in a semantic query, a
// record whose literal match is strong comes back first and labelled
// likely or strong even when its cosine adds nothing.
func TestLiteralFloorInASemanticQuery(t *testing.T) {
	e := New(dim)
	fill(t, e, 100, 40)
	mustAdd(t, e, 1, "the zeppelin hangar opens at dawn", [][]float32{axis(1, 0)}, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "zeppelin museum tickets", [][]float32{axis(2, 0)}, DocMeta{Seq: 2})
	res := mustSearch(t, e, Query{Text: "zeppelin hangar blueprint", Vector: axis(0, 0), Explain: true})
	if len(res) == 0 || res[0].Doc != 1 || res[0].Match == rank.MatchWeak {
		t.Fatalf("got %v (%+v), want doc 1 first, not weak", docsOf(res), res)
	}
	if r := res[0]; r.Explain.PVec != 0 || r.Explain.PLex < 0.6 {
		t.Errorf("doc 1 passed with p_vec %v, p_lex %v: the test no longer tests the literal channel alone", r.Explain.PVec, r.Explain.PLex)
	}
}

// An identifier unique in the vault is conclusive inside a sentence: the
// record holding it comes first whatever the other words share.
func TestUniqueIdentifierConclusiveInSentence(t *testing.T) {
	e := New(0)
	for i := range 3000 {
		mustAdd(t, e, uint32(i), fmt.Sprintf("host app-%d listens on port %d for the zzz service", 20000+i, 30000+i), nil, DocMeta{Seq: uint64(i)})
	}
	mustAdd(t, e, 5000, "The metrics host is on port 2345.", nil, DocMeta{Seq: 5000})
	for _, q := range []string{"2345 zzz port", "which host is on port 2345", "tell me about port 2345 and the zzz service host"} {
		for _, k := range []int{0, 1, 10} {
			res := mustSearch(t, e, Query{Text: q, TopK: k})
			if len(res) == 0 || res[0].Doc != 5000 {
				t.Errorf("%q top_k %d: first %v, want the record holding 2345", q, k, res[:min(1, len(res))])
			}
		}
	}
}

func TestIsIdentifier(t *testing.T) {
	for term, want := range map[string]bool{
		"2345": true, "9f3c2e1a7b4d": true, "a71d09b": true, "v0.9.0": true, "5433": true,
		"2022": false, "1999": false, "42": false, "abc": false, "kafka": false, "2100": true, "20a1": true,
	} {
		if got := isIdentifier(term); got != want {
			t.Errorf("isIdentifier(%q) = %v, want %v", term, got, want)
		}
	}
}

// Two partial matches add up: a record half-matched by each channel comes
// first and is more relevant and more confident than a record matched as
// well by one channel alone (rank.Relevance: 1 − (1 − p_vec)^ρ·(1 − p_lex)).
func TestPartialMatchesAddUp(t *testing.T) {
	e := New(dim)
	fill(t, e, 100, 40)
	// cos 0.58 is p_vec 0.55 under the spec calibration (0.25 to 0.85):
	// with p_lex 1/3 (ρ = 0.816) that is 0.65 together, 0.48 alone.
	half := unit(0.58, float32(math.Sqrt(1-0.58*0.58)), 0, 0, 0, 0, 0, 0)
	mustAdd(t, e, 1, "the zeppelin flew over the lake", [][]float32{half}, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "a hangar by the harbour", [][]float32{axis(2, 0)}, DocMeta{Seq: 2})
	mustAdd(t, e, 3, "an airship in the fog", [][]float32{half}, DocMeta{Seq: 3})
	res := mustSearch(t, e, Query{Text: "zeppelin hangar blueprint", Vector: axis(0, 0), Explain: true})
	if len(res) == 0 || res[0].Doc != 1 {
		t.Fatalf("got %v, want doc 1 first (a third of the words and p_vec 0.55)", docsOf(res))
	}
	for _, r := range res[1:] {
		if r.Explain.Relevance >= res[0].Explain.Relevance || r.Confidence >= res[0].Confidence {
			t.Errorf("doc %d (p_vec %.3f, p_lex %.3f): relevance %v, confidence %v; doc 1 has %v, %v",
				r.Doc, r.Explain.PVec, r.Explain.PLex, r.Explain.Relevance, r.Confidence, res[0].Explain.Relevance, res[0].Confidence)
		}
	}
	if x := res[0].Explain; math.Abs(x.PVec-0.55) > 0.01 || math.Abs(x.PLex-1.0/3) > 0.01 {
		t.Errorf("doc 1: p_vec %v, p_lex %v; want 0.55 and 1/3, or the test tests something else", x.PVec, x.PLex)
	}
}

// A record that holds every word of a question the vault holds is
// conclusive, and a crowd of records whose cosine to the question is at
// the semantic cap does not outvote it, under the spec's calibration and
// under static ones with their own semantic weight. The question is asked
// the way a person does ("what port does postgres use"): its do-support
// is framing, so the record need not say "does".
func TestConclusiveLiteralNotOutvotedByCappedCosines(t *testing.T) {
	static := rank.Calibration{CosFloor: 0.2476, CosCeil: 0.8459, SameMeaning: 0.5369, SameTopic: 0.5202}
	for _, w := range []float64{0, 0.4, 0.6, 0.9} {
		cal := static
		if w == 0 {
			cal = rank.SpecCalibration
		}
		cal.SemanticWeight = w
		e := NewWith(dim, Options{Calibration: cal})
		q := axis(0, 0.01)
		for i := range 40 {
			// Cosine ≈ 1 to the question: p_vec at the cap.
			mustAdd(t, e, uint32(10+i), fmt.Sprintf("Port %d/tcp is registered to the service number %d.", 4000+i, i),
				[][]float32{axis(0, 0.01+float32(i)*0.0001)}, DocMeta{Seq: uint64(10 + i), Reference: true})
		}
		mustAdd(t, e, 1, "PostgreSQL servers use port 5432/tcp; the service is also known as postgres.",
			[][]float32{axis(4, 0)}, DocMeta{Seq: 1, Reference: true})
		fill(t, e, 1000, 20)
		for _, k := range []int{0, 3} {
			res := mustSearch(t, e, Query{Text: "what port does postgres use", Vector: q, TopK: k, Explain: true})
			if len(res) == 0 || res[0].Doc != 1 {
				t.Fatalf("weight %v, top_k %d: %v, want the postgres record first", w, k, docsOf(res))
			}
			if res[0].Explain.PLex != rank.LiteralCap {
				t.Errorf("weight %v: p_lex %v, want the cap: the record holds every word the question keeps", w, res[0].Explain.PLex)
			}
			if len(res) > 1 && res[1].Explain.PVec != rank.SemanticCap {
				t.Errorf("weight %v: the runner-up's p_vec is %v, not the cap the test is about", w, res[1].Explain.PVec)
			}
		}
	}
}

// TestUnreadNameDoesNotHandTheQueryToItsCommonWords is "what port does
// postgres use" over the reference facts with a static model that has no
// vector for "postgres": its cosine sees only "port … use", so hundreds of
// port facts sit near the cap, more than the vector pool holds. The record
// the question names must still come first: it gets its real cosine
// although the pool left it out, and the semantic channel weighs only the
// share of the question the model can read.
func TestUnreadNameDoesNotHandTheQueryToItsCommonWords(t *testing.T) {
	static := rank.Calibration{CosFloor: 0.2476, CosCeil: 0.8459, SameMeaning: 0.5369, SameTopic: 0.5202, SemanticWeight: 0.45}
	q := axis(0, 0.01)
	pg := unit(0.4, 0, 0, 0, 0.9165, 0, 0, 0)
	engine := func(reads func(string) bool) *Engine {
		e := NewWith(dim, Options{Calibration: static, Reads: reads})
		for i := range rank.PoolSize + 100 {
			mustAdd(t, e, uint32(10+i), fmt.Sprintf("Port %d/tcp is registered to the s%d service.", 4000+i, i),
				[][]float32{axis(0, 0.01+float32(i)*1e-5)}, DocMeta{Seq: uint64(10 + i), Reference: true})
		}
		mustAdd(t, e, 1, "Port 5432/tcp is registered to the postgresql service, also known as postgres.",
			[][]float32{pg}, DocMeta{Seq: 1, Reference: true})
		return e
	}
	e := engine(func(term string) bool { return term != "postgres" })
	for _, k := range []int{1, 3} {
		res := mustSearch(t, e, Query{Text: "what port does postgres use", Vector: q, TopK: k, Explain: true})
		if len(res) == 0 || res[0].Doc != 1 {
			t.Fatalf("top_k %d: %v, want the postgres record first", k, docsOf(res))
		}
		x := res[0].Explain
		if want := float64(simd.DotF32(q, pg)); math.Abs(x.Cosine-want) > 0.02 {
			t.Errorf("top_k %d: the postgres record's cosine is %.3f, want its own %.3f although the vector pool left it out", k, x.Cosine, want)
		}
		if !(x.Unseen > 0.3) || !(x.Reliability < 1) {
			t.Errorf("top_k %d: unseen %.2f, reliability %.2f: the model cannot read \"postgres\", the rarest word", k, x.Unseen, x.Reliability)
		}
	}
	// A model that reads every word keeps the spec's reliability.
	res := mustSearch(t, engine(nil), Query{Text: "what port does postgres use", Vector: q, TopK: 1, Explain: true})
	if len(res) != 1 || res[0].Explain.Unseen != 0 {
		t.Fatalf("without Reads: %+v, want unseen 0", res)
	}
}

// The named entity wins: a question that names an entity some record holds
// is more confident in that record than in a record about the same kind of
// thing for another entity, which is never its strong answer.
func TestNamedEntityWins(t *testing.T) {
	e := New(dim)
	fill(t, e, 100, 40)
	// The other entity's record matches the question's other words better
	// and is as close semantically.
	mustAdd(t, e, 1, "The production database of Kassa runs on host db-prod-1 with a replica", [][]float32{axis(0, 0)}, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "Northwind keeps its database on pg-main", [][]float32{axis(0, 0)}, DocMeta{Seq: 2})
	mustAdd(t, e, 3, "Lena speaks Dutch, English and Yoruba", [][]float32{axis(3, 0)}, DocMeta{Seq: 3})
	res := mustSearch(t, e, Query{Text: "what is the production database host of Northwind?", Vector: axis(0, 0), Explain: true})
	byDoc := map[uint32]Result{}
	for _, r := range res {
		byDoc[r.Doc] = r
	}
	nw, kassa := byDoc[2], byDoc[1]
	if nw.Explain == nil || kassa.Explain == nil {
		t.Fatalf("Northwind: %v, want docs 1 and 2", docsOf(res))
	}
	if nw.Explain.Entity != 1 || kassa.Explain.Entity != rank.EntityFactor(0) || kassa.Confidence >= nw.Confidence || kassa.Match == rank.MatchStrong {
		t.Errorf("Kassa's database: entity factor %v, confidence %v (%s); Northwind's: %v, %v",
			kassa.Explain.Entity, kassa.Confidence, kassa.Match, nw.Explain.Entity, nw.Confidence)
	}
	// Without the name the better literal match comes first.
	if res := mustSearch(t, e, Query{Text: "what is the production database host?", Vector: axis(0, 0)}); len(res) == 0 || res[0].Doc != 1 {
		t.Errorf("no entity named: %v, want doc 1 first", docsOf(res))
	}
	// A capital at the start of the question, "I", a month, or a name no
	// record holds marks nothing.
	r := run{e: e, q: Query{Text: "Where did I see Zanzibar in March?"}, lex: e.lex.Search("Where did I see Zanzibar in March?")}
	if marks, info, _ := r.namedTerms(); info != 0 {
		t.Errorf("named terms %v (%v) in a question that names no held entity", marks, info)
	}
}

// The default answer's labels: the memory that answers is likely although
// another memory about the same cluster competes with it, the rival is
// no more confident than the answer and at least the answer's
// confidence times its share of the answer's score (rank.Behind: the two
// are nearly tied), and a near miss (a question naming a product no
// memory mentions, whose other words one memory holds) is weak.
func TestAnswerLikelyNearMissWeak(t *testing.T) {
	e := New(dim)
	fill(t, e, 100, 40)
	mustAdd(t, e, 1, "The payments staging cluster runs three worker nodes on Hetzner", [][]float32{axis(0, 0)}, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "The website staging cluster runs on a single node", [][]float32{axis(0, 0.3)}, DocMeta{Seq: 2})
	mustAdd(t, e, 3, "The ledger admin console lists every management URL of the payments services", [][]float32{axis(1, 0)}, DocMeta{Seq: 3})
	res := mustSearch(t, e, Query{Text: "how many worker nodes does the payments staging cluster have?", Vector: axis(0, 0.1), Explain: true})
	if len(res) < 2 || res[0].Doc != 1 {
		t.Fatalf("answer: %v, want doc 1 first and its rival after it", docsOf(res))
	}
	if res[0].Match == rank.MatchWeak {
		t.Errorf("the answer is %s (confidence %.3f, lead %.2f) because a memory about the same cluster competes", res[0].Match, res[0].Confidence, res[0].Explain.Lead)
	}
	for _, r := range res[1:] {
		share := r.Explain.Entity * r.Unaged / (res[0].Explain.Entity * res[0].Unaged)
		if r.Confidence > res[0].Confidence || r.Confidence < res[0].Confidence*min(share, 1)-1e-12 {
			t.Errorf("doc %d beside the answer: confidence %.3f at %.2f of its score; the answer's %.3f", r.Doc, r.Confidence, share, res[0].Confidence)
		}
	}
	near := mustSearch(t, e, Query{Text: "What's the RabbitMQ management URL?", Vector: axis(1, 0.1), Explain: true})
	if len(near) == 0 || near[0].Doc != 3 {
		t.Fatalf("near miss: %v, want doc 3 (it holds every other word) first", docsOf(near))
	}
	for _, r := range near {
		if r.Match != rank.MatchWeak {
			t.Errorf("near miss: doc %d is %s (confidence %.3f): no memory names RabbitMQ", r.Doc, r.Match, r.Confidence)
		}
	}
	// The same question about a name the vault holds is answered.
	held := mustSearch(t, e, Query{Text: "What's the ledger management URL?", Vector: axis(1, 0.1), Explain: true})
	if len(held) == 0 || held[0].Doc != 3 || held[0].Match == rank.MatchWeak {
		t.Errorf("held name: %v (first %+v), want doc 3 first, likely or strong", docsOf(held), held)
	}
}

// A reference fact that does not hold the entity the question names comes
// after the user's memory that does, even when its evidence is stronger
// ("where can I view metrics in Grafana?" is not about ip tcp_metrics).
func TestReferenceWithoutNamedEntityYields(t *testing.T) {
	e := New(dim)
	fill(t, e, 100, 40)
	// A vault's other memories are near enough in meaning to be
	// candidates (a label reads how far a result stands out of the pool,
	// rank.Standout): notes about other dashboards.
	for i := range 25 {
		mustAdd(t, e, 200+uint32(i), fmt.Sprintf("note %d on the weekly planning board", i), [][]float32{unit(0.25, 0, 0, 0.2, 0, 0.25, 0.9, 0)}, DocMeta{Seq: 200 + uint64(i)})
	}
	mustAdd(t, e, 1, "The ip tcp_metrics command is the management for TCP metrics", [][]float32{axis(0, 0)}, DocMeta{Seq: 1, Reference: true})
	mustAdd(t, e, 2, "The payments dashboards live in Grafana", [][]float32{axis(3, 0)}, DocMeta{Seq: 2})
	// The reference fact is the closer one semantically, as a static model
	// that cannot read "Grafana" makes it.
	q := unit(0.6, 0, 0, 0.5, 0, 0.62, 0, 0)
	res := mustSearch(t, e, Query{Text: "where can I view metrics in Grafana?", Vector: q, Explain: true})
	if len(res) < 2 || res[0].Doc != 2 {
		t.Fatalf("%v, want the Grafana memory first, then the reference fact", docsOf(res))
	}
	if res[0].Match == rank.MatchWeak || res[1].Match != rank.MatchWeak {
		t.Errorf("Grafana memory %s (%.3f), reference fact %s (%.3f): want the memory likely, the fact weak", res[0].Match, res[0].Confidence, res[1].Match, res[1].Confidence)
	}
	// Without a name the reference fact's stronger evidence still wins.
	if res := mustSearch(t, e, Query{Text: "where can I view tcp metrics?", Vector: q}); len(res) == 0 || res[0].Doc != 1 {
		t.Errorf("no entity named: %v, want the reference fact first", docsOf(res))
	}
}

// nthUnaged is the reference rank.Standout reads: the 20th best
// entity-weighed unaged score of the pool, the weakest one's in a smaller
// pool.
func TestNthUnaged(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	pool := func(scores ...float64) []*candidate {
		var out []*candidate
		for _, u := range scores {
			out = append(out, &candidate{entity: 1, scored: rank.Scored{Unaged: u}})
		}
		return out
	}
	if got := nthUnaged(nil, rank.StandoutRank); got != 0 {
		t.Errorf("empty pool: %v, want 0", got)
	}
	if got := nthUnaged(pool(0.3, 0.9, 0.1, 0.5), rank.StandoutRank); got != 0.1 {
		t.Errorf("pool of 4: %v, want the weakest, 0.1", got)
	}
	var scores []float64
	for i := range 50 {
		scores = append(scores, float64((i*37)%50+1)/100) // 0.01 … 0.50, shuffled
	}
	if got := nthUnaged(pool(scores...), rank.StandoutRank); !near(got, 0.31) {
		t.Errorf("pool of 50: %v, want the 20th best, 0.31", got)
	}
	if got := nthUnaged(pool(scores...), 3); !near(got, 0.48) {
		t.Errorf("3rd best of 50: %v, want 0.48", got)
	}
	// The entity factor weighs the pool as it weighs the lead.
	p := pool(0.9, 0.4)
	p[0].entity = rank.EntityFactor(0)
	if got := nthUnaged(p, rank.StandoutRank); !near(got, 0.4) {
		t.Errorf("weighed pool: %v, want 0.4 (0.9 about another entity weighs 0.45)", got)
	}
}

// A question word no record holds finds the record holding its relative
// in the lexicon ("invitations" → "invites"), at rank.RelatedWeight of
// the word's information; written with a capital it is a name, and
// finds nothing.
func TestRelativeOfAnUnheldWord(t *testing.T) {
	e := New(0)
	mustAdd(t, e, 1, "Marcus said the assistant must never send invites on his behalf", nil, DocMeta{Seq: 1})
	mustAdd(t, e, 2, "Marcus reads his work calendar every morning", nil, DocMeta{Seq: 2})
	fill(t, e, 100, 30)
	res := mustSearch(t, e, Query{Text: "meeting invitations", TopK: 3, Explain: true})
	if len(res) == 0 || res[0].Doc != 1 {
		t.Fatalf("results %v, want the record holding invites first", docsOf(res))
	}
	x := res[0].Explain
	i := slices.IndexFunc(x.Terms, func(m fts.TermMatch) bool { return m.Term == "invitations" })
	if i < 0 || x.Terms[i].Via != "invites" || x.Terms[i].Weight != rank.RelatedWeight*fts.VariantWeight {
		t.Errorf("terms %+v, want invitations via invites at %v", x.Terms, rank.RelatedWeight*fts.VariantWeight)
	}
	for _, q := range []string{"meeting Invitations", "meeting INVITATIONS"} {
		for _, r := range mustSearch(t, e, Query{Text: q, TopK: 3}) {
			if r.Doc == 1 && r.Score > 0 {
				t.Errorf("%q found the record of invites (score %v): a name has no relatives", q, r.Score)
			}
		}
	}
}

func TestWrittenAsWord(t *testing.T) {
	for _, c := range []struct {
		query, term string
		want        bool
	}{
		{"send invitations for me", "invitations", true},
		{"invitations?", "invitations", true},
		{"Invitations sent", "invitations", false},
		{"the INVITATIONS", "invitations", false},
		{"see invitations2", "invitations", false},
		{"reinvitations and invitations", "invitations", true},
		{"reinvitations", "invitations", false},
		{"Mark marked", "mark", false},
		{"é invitations", "invitations", true},
		{"", "invitations", false},
	} {
		if got := writtenAsWord(c.query, c.term); got != c.want {
			t.Errorf("writtenAsWord(%q, %q) = %v, want %v", c.query, c.term, got, c.want)
		}
	}
}

// A record holding the question's rarest word that some record holds
// reads as about it (rank.RarestShare): fully in a one-claim memory, less
// in a long text that holds the word in passing, not at all in a record
// that shares the question's commoner words only.
func TestRarestWord(t *testing.T) {
	claim := "Elin sees a dentist at the clinic on Sveavägen"
	long := claim + strings.Repeat(" and then the family talked about the weather for a while", 8)
	search := func(text string) (answer, other Result) {
		t.Helper()
		e := New(0)
		fill(t, e, 100, 40)
		mustAdd(t, e, 1, text, nil, DocMeta{Seq: 1})
		for i := range 3 {
			mustAdd(t, e, 2+uint32(i), fmt.Sprintf("the family clinic visit %d was on a Monday", i), nil, DocMeta{Seq: 2 + uint64(i)})
		}
		res := mustSearch(t, e, Query{Text: "which dentist does the family clinic use?", TopK: 5, Explain: true})
		if len(res) < 2 {
			t.Fatalf("%v, want the answer and the family clinic notes", docsOf(res))
		}
		for _, r := range res {
			if r.Doc == 1 {
				answer = r
			} else if r.Doc >= 2 && r.Doc <= 4 && other.Explain == nil {
				other = r
			}
		}
		if answer.Explain == nil || other.Explain == nil {
			t.Fatalf("%v: want doc 1 and a clinic note", docsOf(res))
		}
		return answer, other
	}
	short, note := search(claim)
	if short.Explain.Rarest != 1 {
		t.Errorf("the one-claim memory holding %q reads %v of the rarest word, want 1", "dentist", short.Explain.Rarest)
	}
	if note.Explain.Rarest != 0 {
		t.Errorf("a note holding only the question's commoner words reads %v of the rarest word, want 0", note.Explain.Rarest)
	}
	lengthy, _ := search(long)
	if !(lengthy.Explain.Rarest > 0 && lengthy.Explain.Rarest < 0.5) {
		t.Errorf("a long text holding the word in passing reads %v of it, want a small share", lengthy.Explain.Rarest)
	}
	if !(lengthy.Confidence < short.Confidence) {
		t.Errorf("the long text is as confident (%.3f) as the one claim (%.3f)", lengthy.Confidence, short.Confidence)
	}
	// A function word is never the rarest, however few records hold it:
	// "our" in one memory of claims written in the third person.
	fw := New(0)
	fill(t, fw, 100, 40)
	mustAdd(t, fw, 1, "Our car is a blue Volvo", nil, DocMeta{Seq: 1})
	mustAdd(t, fw, 2, "Elin sees a dentist on Sveavägen", nil, DocMeta{Seq: 2})
	mustAdd(t, fw, 3, "The twins see a dentist in Bromma", nil, DocMeta{Seq: 3})
	for _, r := range mustSearch(t, fw, Query{Text: "who is our dentist?", TopK: 3, Explain: true}) {
		if want := map[uint32]float64{1: 0, 2: 1, 3: 1}[r.Doc]; r.Explain.Rarest != want {
			t.Errorf("who is our dentist: doc %d reads %v of the rarest word, want %v", r.Doc, r.Explain.Rarest, want)
		}
	}
	// A question whose words most records hold has no rarest word: no
	// term of it is informative.
	e := New(0)
	fill(t, e, 100, 40)
	res := mustSearch(t, e, Query{Text: "note about gardening and weather", TopK: 3, Explain: true})
	if len(res) == 0 {
		t.Fatal("the common words found nothing")
	}
	for _, r := range res {
		if r.Explain.Rarest != 0 {
			t.Errorf("doc %d: rarest %v of a question with no informative word, want 0", r.Doc, r.Explain.Rarest)
		}
	}
}
