package fts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/rank"
	"pgregory.net/rapid"
)

func docs(x *Index, r *Result) []uint32 {
	var out []uint32
	for _, h := range r.Top(r.Len()) {
		out = append(out, h.Doc)
	}
	return out
}

// restored is the index a snapshot of x restores.
func restored(t *testing.T, x *Index) *Index {
	t.Helper()
	b, err := x.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	y := New()
	if err := y.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return y
}

func newIndex(texts map[uint32]string) *Index {
	x := New()
	for d, t := range texts {
		x.Add(d, t)
	}
	return x
}

// filler adds n records that share no words with the tests' queries.
func filler(x *Index, from uint32, n int) {
	for i := range n {
		x.Add(from+uint32(i), fmt.Sprintf("unrelated filler record number %d about gardening", i))
	}
}

func TestAndBeforeOr(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "the deploy key lives in the vault",
		2: "the deploy script runs nightly",
		3: "a key for the shed",
	})
	filler(x, 100, 30)
	r := x.Search("deploy key")
	if got := docs(x, r); r.Mode != ModeAND || len(got) != 3 || got[0] != 1 {
		t.Fatalf("AND: mode %v docs %v, want and, [1] first then the OR hits 2 and 3", r.Mode, got)
	}
	if h := r.Top(1)[0]; h.PLex != rank.LiteralCap || !h.All {
		t.Errorf("an AND hit holding every term has p_lex %v (All %v), want the cap", h.PLex, h.All)
	}
	if _, rk, _ := r.Find(1); rk != 1 {
		t.Errorf("the AND hit's literal rank is %d, want 1", rk)
	}
	r = x.Search("deploy shed")
	if r.Mode != ModeOR {
		t.Fatalf("no record holds both: mode %v, want or", r.Mode)
	}
	got := docs(x, r)
	slices.Sort(got)
	if !slices.Equal(got, []uint32{1, 2, 3}) {
		t.Fatalf("OR docs %v, want [1 2 3]", got)
	}
}

// The OR fallback drops terms held by more than 10% of the records, a
// threshold measured from the index: the same word is informative in one
// index and not in another.
func TestOrUsesOnlyInformativeTerms(t *testing.T) {
	x := New()
	for i := range 20 {
		x.Add(uint32(i), fmt.Sprintf("weekly report number %d", i)) // "report" in every record
	}
	x.Add(100, "the zeppelin report")
	r := x.Search("report zeppelin airship")
	if r.Mode != ModeOR || !slices.Equal(docs(x, r), []uint32{100}) {
		t.Fatalf("mode %v docs %v: want or [100] (report is not informative here)", r.Mode, docs(x, r))
	}
	for _, qt := range r.Terms {
		if qt.Text == "report" && qt.Informative {
			t.Errorf("report is in 21 of 21 records and was marked informative")
		}
	}
	// In a small index the same word is informative again.
	y := newIndex(map[uint32]string{1: "the zeppelin report"})
	filler(y, 10, 20)
	if r := y.Search("report airship"); !slices.Equal(docs(y, r), []uint32{1}) {
		t.Fatalf("docs %v, want [1]", docs(y, r))
	}
	// A query of only common words returns nothing in OR mode, and no error.
	if r := x.Search("weekly number airship"); r.Len() != 0 {
		t.Errorf("common words only: %d hits, want none", r.Len())
	}
	// In AND mode a record holding every word holds all of the query's
	// information, however little: each hit matches it fully.
	r = x.Search("weekly number")
	if r.Mode != ModeAND || r.Len() != 20 || r.Top(1)[0].PLex < 0.99 {
		t.Errorf("common words only, AND: mode %v, %d hits, p_lex %v; want and, 20, 0.999", r.Mode, r.Len(), r.Top(1)[0].PLex)
	}
}

// p_lex is the share of the query's information a record holds:
// Σ I(t) present / Σ I(t), with I(t) = ln(N/(1+df)).
func TestPLexFormula(t *testing.T) {
	x := newIndex(map[uint32]string{1: "alpha beta", 2: "alpha gamma", 3: "delta"})
	filler(x, 10, 7)
	n := 10
	r := x.Search("alpha beta gamma")
	iAlpha, iBeta := rank.TermInfo(n, 2), rank.TermInfo(n, 1)
	total := iAlpha + 2*iBeta
	want := map[uint32]float64{1: (iAlpha + iBeta) / total, 2: (iAlpha + iBeta) / total}
	for _, h := range r.Top(10) {
		if math.Abs(h.PLex-want[h.Doc]) > 1e-12 {
			t.Errorf("doc %d p_lex %v, want %v", h.Doc, h.PLex, want[h.Doc])
		}
	}
	if r.Len() != 2 {
		t.Errorf("%d hits, want 2", r.Len())
	}
}

// Every hit gets its p_lex, not just the first few hundred, and ranks
// from Find agree with Top.
func TestEveryHitHasPLex(t *testing.T) {
	x := New()
	for i := range 3000 {
		extra := ""
		if i%3 == 0 {
			extra = " quasar"
		}
		x.Add(uint32(i), fmt.Sprintf("pulsar observation %d%s", i, extra))
	}
	filler(x, 10000, 30000)
	r := x.Search("pulsar quasar blazar") // no record has blazar: OR
	if r.Len() != 3000 {
		t.Fatalf("%d hits, want 3000", r.Len())
	}
	top := slices.Clone(r.Top(r.Len()))
	ranked := slices.Clone(top)
	slices.SortFunc(ranked, compareRank)
	for i, h := range ranked {
		if h.PLex <= 0 {
			t.Fatalf("hit %d (doc %d) has no p_lex", i, h.Doc)
		}
		if hf, rk, ok := r.Find(h.Doc); !ok || rk != i+1 || hf != h {
			t.Fatalf("Find(%d) = %v rank %d ok %v, want rank %d", h.Doc, hf, rk, ok, i+1)
		}
	}
	for i := 1; i < len(top); i++ {
		if top[i].PLex > top[i-1].PLex {
			t.Fatalf("Top: hits %d and %d out of p_lex order", i-1, i)
		}
	}
	if _, _, ok := r.Find(10001); ok {
		t.Errorf("Find found a record that did not match")
	}
}

func TestTopMatchesFullSort(t *testing.T) {
	x := New()
	for i := range 1000 {
		x.Add(uint32(i), strings.Repeat("nebula ", 1+i%7)+fmt.Sprintf("comet%d", i%13))
	}
	const q = "nebula comet3 comet5 comet7" // no record holds all: OR, ~230 hits
	full := slices.Clone(x.Search(q).Top(1000))
	if len(full) < 200 {
		t.Fatalf("%d hits, want over 200", len(full))
	}
	for _, n := range []int{1, 5, 50, 120} {
		if got := x.Search(q).Top(n); !slices.Equal(got, full[:n]) {
			t.Fatalf("Top(%d) differs from the first %d of a full sort", n, n)
		}
	}
}

func TestFragmentsAndMisspellings(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "fixed the race in commit 9f3c2a1b7d4e5f60718293a4b5c6d7e8f9012345",
		2: "config lives at /etc/compartment/settings.json",
		3: "remember to receive the parcel on Monday",
		4: "the meetings were moved to Thursday",
	})
	filler(x, 100, 40)
	for _, tc := range []struct {
		query string
		want  uint32
		via   string
	}{
		{"9f3c2a1b", 1, "9f3c2a1b7d4e5f60718293a4b5c6d7e8f9012345"},
		{"compartment/settings", 2, "etc/compartment/settings.json"},
		{"recieve", 3, "receive"},
		{"meeting", 4, "meetings"},
	} {
		r := x.Search(tc.query)
		top := r.Top(1)
		if len(top) == 0 || top[0].Doc != tc.want {
			t.Errorf("%q: top %v, want doc %d", tc.query, top, tc.want)
			continue
		}
		m := r.Explain(top[0])
		if !slices.ContainsFunc(m, func(m TermMatch) bool { return m.Via == tc.via && m.Weight > 0 }) {
			t.Errorf("%q: explanation %v does not name %q", tc.query, m, tc.via)
		}
	}
	// A fuzzy match earns less than the word itself.
	r := x.Search("recieve")
	if p := r.Top(1)[0].PLex; p >= rank.LiteralCap || p <= 0 {
		t.Errorf("misspelling p_lex %v, want in (0, cap)", p)
	}
}

// A 10,000-character query is handled with a bounded number of terms.
func TestLongQueryBounded(t *testing.T) {
	x := New()
	filler(x, 0, 200)
	x.Add(999, "the needle 7e1f00d")
	var b strings.Builder
	for i := 0; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "%s ", letters(i*7919))
	}
	b.WriteString("7e1f00d")
	r := x.Search(b.String())
	active, fuzzy := 0, 0
	for _, qt := range r.Terms {
		if qt.Active {
			active++
		}
		if len(qt.Expansions) > 0 && qt.DF > 0 {
			fuzzy++
		}
	}
	if active > MaxQueryTerms || len(r.Terms) <= MaxQueryTerms {
		t.Errorf("%d terms, %d active: want more than %d terms and at most %d active", len(r.Terms), active, MaxQueryTerms, MaxQueryTerms)
	}
	if top := r.Top(1); len(top) == 0 || top[0].Doc != 999 {
		t.Errorf("the one informative, present term did not find its record: %v", top)
	}
	huge := strings.Repeat("abcdefgh ", MaxQueryBytes) // 9× the byte cap
	if r := x.Search(huge); r.Len() != 0 {
		t.Errorf("junk query found %d records", r.Len())
	}
}

// letters spells n in base 26 with a "zq" prefix: junk words no record holds.
func letters(n int) string {
	b := []byte("zq")
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(b)
		}
	}
}

func TestEmptyAndTinyIndexes(t *testing.T) {
	x := New()
	if r := x.Search("anything"); r.Len() != 0 || r.Mode != ModeNone {
		t.Fatalf("empty index answered %v", r)
	}
	x.Add(7, "the only memory mentions kayaks")
	r := x.Search("kayaks")
	if !slices.Equal(docs(x, r), []uint32{7}) || r.Top(1)[0].PLex <= 0 {
		t.Fatalf("a one-record vault must find its record: %v", r.Top(1))
	}
	if r := x.Search("!!! ???"); r.Len() != 0 {
		t.Errorf("punctuation-only query found %d", r.Len())
	}
}

// Document frequencies stay exact through any sequence of adds, replaces
// and deletes, compared with a model that re-counts from the live texts.
func TestPropertyDocumentFrequencies(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "foo_bar", "v1.2", "Alpha", "x@y.z"}
	rapid.Check(t, func(t *rapid.T) {
		x := New()
		live := map[uint32]string{}
		for range rapid.IntRange(1, 60).Draw(t, "ops") {
			doc := rapid.Uint32Range(0, 15).Draw(t, "doc")
			if rapid.IntRange(0, 3).Draw(t, "op") == 0 {
				x.Delete(doc)
				delete(live, doc)
				continue
			}
			ws := rapid.SliceOfN(rapid.SampledFrom(words), 0, 6).Draw(t, "words")
			text := strings.Join(ws, " ")
			x.Add(doc, text)
			live[doc] = text
		}
		if x.Len() != len(live) {
			t.Fatalf("Len %d, want %d", x.Len(), len(live))
		}
		want := map[string]int{}
		for _, text := range live {
			for _, tok := range Tokens(text) {
				want[tok]++
			}
		}
		if x.VocabularySize() != len(want) {
			t.Fatalf("vocabulary %d terms, want %d", x.VocabularySize(), len(want))
		}
		for tok, df := range want {
			if got := x.DF(tok); got != df {
				t.Fatalf("df(%q) = %d, want %d", tok, got, df)
			}
		}
		for id, tm := range x.terms {
			if tm.text != "" && len(tm.slots) == 0 {
				t.Fatalf("term %d %q kept with no postings", id, tm.text)
			}
		}
	})
}

func TestReplaceAndDelete(t *testing.T) {
	x := New()
	x.Add(1, "orange submarine")
	x.Add(1, "yellow submarine")
	if x.DF("orange") != 0 || x.DF("yellow") != 1 || x.DF("submarine") != 1 || x.Len() != 1 {
		t.Fatalf("replace left df orange=%d yellow=%d submarine=%d len=%d", x.DF("orange"), x.DF("yellow"), x.DF("submarine"), x.Len())
	}
	if !x.Delete(1) || x.Delete(1) {
		t.Fatalf("Delete reported wrongly")
	}
	if x.Len() != 0 || x.VocabularySize() != 0 || fuzzyTerms(x) != 0 {
		t.Fatalf("after delete: len %d vocabulary %d, %d terms in the trigram and prefix indexes", x.Len(), x.VocabularySize(), fuzzyTerms(x))
	}
	if r := x.Search("submarine"); r.Len() != 0 {
		t.Fatalf("deleted record still found")
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"receive", "recieve", 2, 1}, // transposition
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 1, 2}, // gives up past the limit
		{"same", "same", 1, 0},
		{"ab", "abcd", 1, 2},
	} {
		var sc searchScratch
		if got := sc.editDistance([]rune(tc.a), []rune(tc.b), tc.limit); got != tc.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

// Search agrees with a brute-force reading of the rules on random small
// indexes: the AND set when it is not empty, else the OR set over
// informative terms, each record with p_lex = Σ I(present) / Σ I(all).
// (Three-letter words: no fuzzy matching or variants.)
func TestPropertySearchMatchesModel(t *testing.T) {
	vocab := []string{"ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "owl", "yak"}
	rapid.Check(t, func(t *rapid.T) {
		x := New()
		texts := map[uint32][]string{}
		for d := range uint32(rapid.IntRange(1, 40).Draw(t, "docs")) {
			ws := rapid.SliceOfN(rapid.SampledFrom(vocab), 1, 6).Draw(t, "words")
			x.Add(d, strings.Join(ws, " "))
			texts[d] = ws
		}
		q := rapid.SliceOfNDistinct(rapid.SampledFrom(vocab), 1, 5, func(s string) string { return s }).Draw(t, "query")
		n := len(texts)
		df := map[string]int{}
		for _, ws := range texts {
			for _, w := range slices.Compact(slices.Sorted(slices.Values(ws))) {
				df[w]++
			}
		}
		total := 0.0
		for _, w := range q {
			total += rank.TermInfo(n, df[w])
		}
		want, wantAll := map[uint32]float64{}, map[uint32]bool{}
		for d, ws := range texts {
			matched, all, anyInformative := 0.0, true, false
			for _, w := range q {
				if slices.Contains(ws, w) {
					matched += rank.TermInfo(n, df[w])
					anyInformative = anyInformative || df[w] <= rank.InformativeDF(n)
				} else {
					all = false
				}
			}
			if all || anyInformative {
				want[d], wantAll[d] = rank.PLex(matched, total), all
			}
		}
		r := x.Search(strings.Join(q, " "))
		got := map[uint32]float64{}
		seenOR := false
		for _, h := range r.Top(r.Len()) {
			got[h.Doc] = h.PLex
			if h.All != wantAll[h.Doc] {
				t.Fatalf("query %v doc %d: All %v, want %v", q, h.Doc, h.All, wantAll[h.Doc])
			}
			if h.All && seenOR {
				t.Fatalf("query %v: AND hit %d after an OR hit", q, h.Doc)
			}
			seenOR = seenOR || !h.All
		}
		if len(got) != len(want) {
			t.Fatalf("query %v: hits %v, want %v", q, got, want)
		}
		for d, p := range want {
			if math.Abs(got[d]-p) > 1e-12 {
				t.Fatalf("query %v doc %d: p_lex %v, want %v", q, d, got[d], p)
			}
		}
	})
}

// FindAll gives exact ranks without sorting every hit, before or after a
// partial Top.
func TestFindAllRanks(t *testing.T) {
	x := New()
	for i := range 2000 {
		x.Add(uint32(i), strings.Repeat("lantern ", 1+i%5)+fmt.Sprintf("item%d", i%17))
	}
	filler(x, 10000, 20000)
	full := x.Search("lantern item3 zzzz")
	ranked := slices.Clone(full.Top(full.Len()))
	slices.SortFunc(ranked, compareRank)
	want := map[uint32]int{}
	for i, h := range ranked {
		want[h.Doc] = i + 1
	}
	docs := []uint32{1999, 3, 0, 777, 1500, 42, 10001}
	// FindAllTo answers the same in a reused buffer: one too short, and
	// one longer than the answer and full of another query's hits.
	dirty := make([]Found, 12)
	for i := range dirty {
		dirty[i] = Found{Hit: Hit{Doc: 5, PLex: 0.5, All: true}, Rank: 9, OK: true}
	}
	for _, top := range []int{0, 50} {
		for _, dst := range [][]Found{nil, make([]Found, 2), dirty} {
			r := x.Search("lantern item3 zzzz")
			r.Top(top)
			got := r.FindAllTo(dst, docs)
			if len(got) != len(docs) {
				t.Fatalf("top %d, buffer of %d: %d answers for %d records", top, len(dst), len(got), len(docs))
			}
			for i, f := range got {
				w, ok := want[docs[i]]
				if f.OK != ok || f.Rank != w || (!ok && f != Found{}) {
					t.Errorf("top %d, buffer of %d, doc %d: %+v, want rank %d ok %v", top, len(dst), docs[i], f, w, ok)
				}
			}
		}
	}
}

// A possessive counts once: "Henrik's" in a query is the term "henrik",
// which records of "Henrik" and of "Henrik's" both hold, so the one that
// also holds the other word comes first and neither is worth half of it.
func TestPossessiveCountsOnce(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "Henrik likes green tea.",
		2: "Henrik's birthday is on the ninth of May.",
		3: "The office closes at six.",
	})
	r := x.Search("When is Henrik's birthday?")
	for _, term := range r.Terms {
		if strings.Contains(term.Text, "'") {
			t.Errorf("query term %q: the possessive should leave only its word", term.Text)
		}
	}
	if top := r.Top(3); len(top) == 0 || top[0].Doc != 2 || top[0].PLex < rank.LiteralCap {
		t.Fatalf("Top = %+v, want record 2 first with every query word", top)
	}
	if got := r.Top(3); len(got) != 1 {
		t.Errorf("Top = %+v, want only record 2 (the AND match)", got)
	}
	if got := x.Search("Henrik's").Top(3); len(got) != 2 {
		t.Errorf("Search(Henrik's) = %+v, want both records of Henrik", got)
	}
}

// fuzzyTerms counts the terms the trigram and prefix indexes still list:
// the fresh lists' entries and the base terms not gone.
func fuzzyTerms(x *Index) int {
	n := 0
	for _, list := range x.fresh.grams {
		n += len(list)
	}
	for _, list := range x.fresh.prefixes {
		n += len(list)
	}
	for id := range x.base.len() {
		if x.isBase(uint32(id)) {
			n++
		}
	}
	return n
}

// A relative the caller names (Options.Related) matches a word no record
// holds, at RelatedWeight of the word's information and with the term's
// own df and information unchanged; a word some record holds, or a
// variant of it, asks for no relative.
func TestRelatedWords(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "Marcus must never send invites on his behalf",
		2: "the invoice was sent on Monday",
		3: "the teacher moved the meeting",
	})
	filler(x, 100, 40)
	asked := map[string]bool{}
	rel := Options{RelatedWeight: 0.5, Related: func(term string) []string {
		asked[term] = true
		return map[string][]string{"invitations": {"invite"}, "meetings": {"meet"}}[term]
	}}
	const q = "send invitations for meetings"
	plain, wide := x.Search(q), x.SearchWith(q, rel)
	if fmt.Sprint(termsOf(plain)) != fmt.Sprint(termsOf(wide)) || plain.TotalInfo != wide.TotalInfo {
		t.Fatalf("relatives changed the query's terms: %v vs %v", termsOf(plain), termsOf(wide))
	}
	if !asked["invitations"] || asked["send"] || asked["meetings"] {
		t.Errorf("asked for relatives of %v; want only the word no record holds (invitations)", asked)
	}
	find := func(r *Result, doc uint32) (Hit, bool) { h, _, ok := r.Find(doc); return h, ok }
	h0, _ := find(plain, 1)
	h1, ok := find(wide, 1)
	if !ok {
		t.Fatalf("the record holding the relative (invites) is not found")
	}
	var inv QueryTerm
	for _, term := range wide.Terms {
		if term.Text == "invitations" {
			inv = term
		}
	}
	// "invites" is a variant of the relative "invite": weight 0.5 · VariantWeight.
	want := h0.PLex + 0.5*VariantWeight*inv.Info/wide.TotalInfo
	if math.Abs(h1.PLex-want) > 1e-12 || inv.DF != 0 {
		t.Errorf("p_lex with the relative %v, want %v (without it %v); df %d", h1.PLex, want, h0.PLex, inv.DF)
	}
	m := wide.Explain(h1)
	if !slices.ContainsFunc(m, func(m TermMatch) bool {
		return m.Term == "invitations" && m.Via == "invites" && m.Weight < VariantWeight
	}) {
		t.Errorf("explanation %v does not name the relative", m)
	}
	// The record holding neither the word nor a relative gains nothing.
	a, _ := find(plain, 2)
	if b, _ := find(wide, 2); a.PLex != b.PLex {
		t.Errorf("an unrelated record's p_lex moved: %v → %v", a.PLex, b.PLex)
	}
	// A restored index finds its relatives in the restored vocabulary
	// just as the index it was cut from does.
	y := restored(t, x)
	if h, ok := find(y.SearchWith(q, rel), 1); !ok || math.Abs(h.PLex-h1.PLex) > 1e-12 {
		t.Errorf("restored index: p_lex %v (found %v), want %v as before the restore", h.PLex, ok, h1.PLex)
	}
	exact := Options{RelatedWeight: 0.5, Related: func(string) []string { return []string{"invites"} }}
	a1, _ := find(x.SearchWith(q, exact), 1)
	if b1, ok := find(y.SearchWith(q, exact), 1); !ok || math.Abs(a1.PLex-b1.PLex) > 1e-12 {
		t.Errorf("restored index, a relative the vocabulary holds as written: p_lex %v (found %v), want %v", b1.PLex, ok, a1.PLex)
	}
}

func termsOf(r *Result) []QueryTerm {
	out := slices.Clone(r.Terms)
	for i := range out {
		out[i].Expansions = nil
	}
	return out
}

// Words is a hit's record length in word tokens, what BM25 normalises
// by; a hit the result did not find has none.
func TestHitWords(t *testing.T) {
	x := New()
	x.Add(1, "the zeppelin report")
	x.Add(2, "a zeppelin flew over the harbour on a windy day in May")
	x.Delete(1)
	x.Add(3, "zeppelin")
	r := x.Search("zeppelin")
	want := map[uint32]int{2: 12, 3: 1}
	hits := r.Top(10)
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d", len(hits), len(want))
	}
	for _, h := range hits {
		if got := r.Words(h); got != want[h.Doc] {
			t.Errorf("doc %d: %d words, want %d", h.Doc, got, want[h.Doc])
		}
	}
	// A restored index knows the same lengths.
	ry := restored(t, x).Search("zeppelin")
	for _, h := range ry.Top(10) {
		if got := ry.Words(h); got != want[h.Doc] {
			t.Errorf("restored, doc %d: %d words, want %d", h.Doc, got, want[h.Doc])
		}
	}
	if got := r.Words(Hit{Doc: 99, slot: 1 << 20}); got != 0 {
		t.Errorf("a hit out of the index has %d words", got)
	}
}
