package fts

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/compartment/compartment/rank"
	"github.com/compartment/compartment/simd"
)

// Query limits. Together they bound a query's cost whatever its length:
// tokenising is linear in the (truncated) text, and the postings read are
// those of at most MaxQueryTerms terms plus MaxFuzzyTerms trigram lookups.
const (
	// MaxQueryBytes is how much of a query text is read; the rest is
	// ignored (cut at a rune boundary).
	MaxQueryBytes = 32 << 10
	// MaxQueryTerms is how many distinct query terms are matched against
	// the postings: the rarest terms the vocabulary holds (then those it
	// lacks, then first in the query). Every distinct term still counts in the
	// query's total information, so a record can account for at most the
	// share of a very long query that these terms carry.
	MaxQueryTerms = 64
)

// BM25 parameters. BM25 does not score evidence here (p_lex does); it only
// orders records that p_lex ties, such as all the records an AND query
// matches, which is the literal channel's rank.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Mode says which query the literal channel answered.
type Mode int

const (
	// ModeNone: nothing matched (or the query had no terms).
	ModeNone Mode = iota
	// ModeAND: some records hold every query term. They come first,
	// followed by the records holding any informative term.
	ModeAND
	// ModeOR: AND found nothing; the records holding any informative term.
	ModeOR
)

func (m Mode) String() string {
	switch m {
	case ModeAND:
		return "and"
	case ModeOR:
		return "or"
	}
	return "none"
}

// QueryTerm is one distinct term of a query and what the index knows of it.
type QueryTerm struct {
	Text string
	// DF is the number of records holding the term; for a term missing
	// from the vocabulary, the number holding any of its expansions.
	DF int
	// Info is I(t) = ln(N/(1+max(DF,1))) (see rank.TermInfo).
	Info float64
	// Informative: DF ≤ 10% of the records (at least 1), so the term
	// takes part in the OR fallback.
	Informative bool
	// Active: the term is matched against the postings (one of the
	// MaxQueryTerms most informative). Inactive terms only count in the
	// query's total information.
	Active bool
	// Expansions are the vocabulary terms a record may hold to match the
	// term, best first. For a term in the vocabulary: itself (weight 1)
	// then its variants (same word, different ending). For a term missing
	// from it: terms containing it, misspellings of it, and its variants.
	// Empty when the term matches only itself.
	Expansions []Expansion
}

// Hit is one record the literal channel found.
type Hit struct {
	Doc uint32
	// slot is the record's slot in the index that found it, so looking
	// the hit up again needs no map access (it fills Doc's padding).
	slot uint32
	// PLex is the share of the query's information the record accounts
	// for, capped at 0.999 (rank.PLex).
	PLex float64
	// BM25 breaks ties between equal PLex.
	BM25 float64
	// All: the record holds every query term (an AND hit). AND hits rank
	// before the rest in both orders.
	All bool
	// Matched has bit i set when Terms[i] matched the record.
	Matched uint64
}

// Result is the literal channel's answer to one query: every matching
// record with its p_lex (not only the first few), and the query's terms.
// It refers to the index for explanations, so it is only valid while the
// index is not modified.
type Result struct {
	Terms []QueryTerm
	// Framing are the phrases of the query left out as framing ("two
	// weeks ago", "I mentioned that"), in query order.
	Framing   []string
	Mode      Mode
	TotalInfo float64 // Σ I(t) over all distinct query terms

	hits   []Hit
	sorted int // hits[:sorted] are the best, in order
	x      *Index
}

// Len is the number of records found.
func (r *Result) Len() int { return len(r.hits) }

// Release hands the result's hits back to the index for the next query
// to reuse: at 100,000 records a query finds thousands of records, and
// allocating their hits anew each time was most of what a search left for
// the garbage collector. The result (and every slice it returned) must
// not be used after.
func (r *Result) Release() {
	if r == nil || r.x == nil || cap(r.hits) == 0 {
		return
	}
	hits := r.hits[:0]
	r.hits, r.sorted = nil, 0
	r.x.hitPool.Put(&hits)
}

// Top returns the n hits with the strongest literal evidence, strongest
// first: AND hits, then higher p_lex, then higher BM25, then lower doc.
// This is the candidate pool: no record beyond it has a higher p_lex. The
// slice is owned by r.
func (r *Result) Top(n int) []Hit {
	n = min(max(n, 0), len(r.hits))
	if n > r.sorted && keyedOrder {
		// As below: a pool of a quarter of the hits or more sorts them all.
		if n*4 >= len(r.hits) {
			r.topKeyed(len(r.hits))
		} else {
			r.topKeyed(n)
		}
		return r.hits[:n]
	}
	if n > r.sorted {
		if n*4 >= len(r.hits) {
			r.sortAll()
		} else {
			selectTop(r.hits, n)
			slices.SortFunc(r.hits[:n], compareEvidence)
			r.sorted = n
		}
	}
	return r.hits[:n]
}

// Find returns doc's hit and its 1-based rank among all hits.
func (r *Result) Find(doc uint32) (Hit, int, bool) {
	f := r.FindAll([]uint32{doc})
	return f[0].Hit, f[0].Rank, f[0].OK
}

// Found is one answer of [Result.FindAll].
type Found struct {
	Hit  Hit
	Rank int // 1-based, among all hits
	OK   bool
}

// FindAll looks up several distinct records at once: their hits and
// exact ranks among all hits in the channel's rank order (compareRank),
// without sorting all hits. It sorts the m records asked for and counts,
// for each of the H hits, which of them it precedes: O(H·log m), with no
// allocation proportional to the index.
func (r *Result) FindAll(docs []uint32) []Found { return r.FindAllTo(nil, docs) }

// FindAllTo is [Result.FindAll] answering in dst's storage when it is
// large enough (dst's contents are overwritten), so a caller asking for
// some hundreds of records per query can reuse one buffer.
func (r *Result) FindAllTo(dst []Found, docs []uint32) []Found {
	out := slices.Grow(dst[:0], len(docs))[:len(docs)]
	clear(out)
	if len(r.hits) == 0 {
		return out
	}
	sc := r.x.getScratch()
	defer r.x.scratch.Put(sc)
	gen := sc.nextGen()
	// Mark the asked records' slots with their index in docs.
	for i, d := range docs {
		if s, ok := r.x.docs.get(d); ok {
			sc.stamp[s], sc.where[s] = gen, int32(i)
		}
	}
	asked := sc.asked[:0] // the hits of the records asked for
	defer func() { sc.asked = asked[:0] }()
	for _, h := range r.hits {
		if s := h.slot; sc.stamp[s] == gen {
			out[sc.where[s]] = Found{Hit: h, OK: true}
			asked = append(asked, h)
		}
	}
	slices.SortFunc(asked, compareRank)
	// before[k]: hits that precede asked[k] but not asked[k-1].
	before := slices.Grow(sc.before[:0], len(asked)+1)[:len(asked)+1]
	clear(before)
	defer func() { sc.before = before[:0] }()
	if keyedOrder {
		r.countPrecedingKeyed(asked, before, sc)
	} else {
		r.countPreceding(asked, before)
	}
	preceding := 0
	for k, h := range asked {
		preceding += before[k]
		out[sc.where[h.slot]].Rank = preceding + 1
	}
	return out
}

// countPreceding is countPrecedingKeyed comparing hits field by field: a
// bisection of asked over compareRank for each hit.
func (r *Result) countPreceding(asked []Hit, before []int) {
	for i := range r.hits {
		h := &r.hits[i]
		lo, hi := 0, len(asked) // asked[lo:] are the first not preceding h
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if rankBefore(&asked[mid], h) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		// h precedes asked[lo:], except asked[lo] itself when it is h.
		if lo < len(asked) && asked[lo].Doc == h.Doc {
			lo++
		}
		before[lo]++
	}
}

// rankBefore reports whether a precedes b in the rank order (compareRank),
// without copying either.
func rankBefore(a, b *Hit) bool {
	if a.All != b.All {
		return a.All
	}
	if a.BM25 != b.BM25 {
		return a.BM25 > b.BM25
	}
	if a.PLex != b.PLex {
		return a.PLex > b.PLex
	}
	return a.Doc < b.Doc
}

func (r *Result) sortAll() {
	if r.sorted < len(r.hits) {
		slices.SortFunc(r.hits, compareEvidence)
		r.sorted = len(r.hits)
	}
}

// TermMatch explains one query term's part in a hit.
type TermMatch struct {
	Term   string  `json:"term"`          // the query term
	Via    string  `json:"via,omitempty"` // the vocabulary term that matched, when not Term itself
	Info   float64 `json:"info"`          // I(t)
	Weight float64 `json:"weight"`        // share of I(t) earned: 1, or less for a misspelling or variant
}

// Explain lists the query terms a hit matched, with the information each
// earned.
func (r *Result) Explain(h Hit) []TermMatch {
	var out []TermMatch
	s, ok := r.x.docs.get(h.Doc)
	for i, t := range r.Terms {
		if i >= 64 || h.Matched&(1<<i) == 0 {
			continue
		}
		m := TermMatch{Term: t.Text, Info: t.Info, Weight: 1}
		if len(t.Expansions) > 0 && ok {
			for _, e := range t.Expansions {
				// The record holds e when e's postings name its slot.
				if _, found := slices.BinarySearch(r.x.terms[e.id].slots, s); found {
					m.Weight = e.Weight
					if e.Term != t.Text {
						m.Via = e.Term
					}
					break
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// Words is the length of a hit's record in word tokens (what BM25
// normalises by), 0 for a hit this result did not find.
func (r *Result) Words(h Hit) int {
	if r.x == nil || int(h.slot) >= len(r.x.info) || r.x.info[h.slot].doc != h.Doc {
		return 0
	}
	return int(r.x.info[h.slot].words)
}

// compareRank is the literal channel's rank order: BM25, then p_lex,
// then doc. BM25 orders (the original ranked FTS5 hits by bm25 too), p_lex
// weighs: the rank only feeds the small rank-agreement residue, while
// p_lex carries the evidence. On LongMemEval_S dev ranking by BM25 beat
// ranking by p_lex by about a point of session recall_any@5.
func compareRank(a, b Hit) int {
	if a.All != b.All {
		return andFirst(a)
	}
	if c := cmpDesc(a.BM25, b.BM25); c != 0 {
		return c
	}
	if c := cmpDesc(a.PLex, b.PLex); c != 0 {
		return c
	}
	return cmpU32(a.Doc, b.Doc)
}

// compareEvidence is the pool order: AND hits, then p_lex, then BM25,
// then doc.
func compareEvidence(a, b Hit) int {
	if a.All != b.All {
		return andFirst(a)
	}
	if c := cmpDesc(a.PLex, b.PLex); c != 0 {
		return c
	}
	if c := cmpDesc(a.BM25, b.BM25); c != 0 {
		return c
	}
	return cmpU32(a.Doc, b.Doc)
}

// andFirst orders a before b when a is the AND hit of the two.
func andFirst(a Hit) int {
	if a.All {
		return -1
	}
	return 1
}

// cmpDesc orders larger values first.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// selectTop moves the n hits with the strongest evidence (in any order)
// to the front of hs: quickselect, linear on average.
func selectTop(hs []Hit, n int) {
	lo, hi := 0, len(hs)-1
	for lo < hi {
		p := hs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for compareEvidence(hs[i], p) < 0 {
				i++
			}
			for compareEvidence(hs[j], p) > 0 {
				j--
			}
			if i <= j {
				hs[i], hs[j] = hs[j], hs[i]
				i++
				j--
			}
		}
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// searchScratch is the per-query working memory, pooled so concurrent
// queries never share it.
type searchScratch struct {
	// acc and held are the exhaustive read's accumulators by slot and
	// its bitmap of them in use (acc[slot].mask != 0), made by its first
	// query: the windowed read has a window's worth of each in parts.
	acc         []accum
	held        []uint64
	touched     []uint32
	parts       [2]windowPart // the windowed read's lists, one per half when split
	plan        readPlan      // the windowed read's lists
	stamp       []uint32      // by slot: generation of the last union count or FindAll
	where       []int32       // by slot: FindAll's index of the record, when stamped
	gen         uint32
	gramHits    []gramCount // by term id
	gramTouched []uint32
	buckets     [][]uint32 // edit candidates by shared trigrams
	runes       []rune     // a candidate term, for the edit distance
	rows        [3][]int   // edit-distance rows
	asked       []Hit      // FindAll: the hits of the records asked for
	before      []int      // FindAll: hits counted before each asked one
	upper       []int      // FindAll: the same, counted over the upper half of the hits
	keys        []uint64   // FindAll: the asked hits' rank keys
	entries     []evEntry  // Top: every hit's pool-order keys
	chosen      []Hit      // Top: the hits chosen, in order
}

type accum struct {
	mask uint64
	num  float64 // Σ weight·I(t) of matched terms
	bm   float64
	norm float64 // the record's BM25 length norm, set at its first match
}

func (x *Index) getScratch() *searchScratch {
	sc, _ := x.scratch.Get().(*searchScratch)
	if sc == nil {
		sc = &searchScratch{}
	}
	if len(sc.stamp) < len(x.info) {
		// Room for the slots of a sixteenth more documents: a store
		// adding one slot then does not make every pooled scratch
		// allocate its arrays again.
		n := len(x.info) + len(x.info)/16 + 64
		sc.acc, sc.held = nil, nil
		sc.stamp = make([]uint32, n)
		sc.where = make([]int32, n)
		sc.gen = 0
	}
	return sc
}

// slotAccums gives sc the exhaustive read's accumulators for every slot
// (getScratch has sized stamp for them).
func (sc *searchScratch) slotAccums() {
	if n := len(sc.stamp); len(sc.acc) < n {
		sc.acc = make([]accum, n)
		sc.held = make([]uint64, (n+63)/64)
	}
}

// Search answers a query: its framing (see [framingPhrases]) is dropped,
// every distinct remaining term gets its information over the live
// records; records holding every term (AND) come first, then records
// holding any informative term (OR), which are the whole answer when no
// record holds every term. Every hit carries its p_lex.
func (x *Index) Search(query string) *Result { return x.SearchWith(query, Options{}) }

// Options widen a query beyond its own words.
type Options struct {
	// Related, when set, gives a query term's relatives (words of its
	// family, as the caller knows them: the index knows only spellings).
	// It is asked only about the terms no record holds, nor any variant
	// or misspelling of: where the literal channel has nothing else for
	// the word. A record holding a relative, or a variant of one, matches
	// the term at RelatedWeight of its information, so a relative is
	// weaker evidence than the word.
	Related       func(term string) []string
	RelatedWeight float64
}

// SearchWith is [Index.Search] with the query widened by o.
func (x *Index) SearchWith(query string, o Options) *Result {
	r := &Result{x: x}
	if len(query) > MaxQueryBytes {
		query = truncateRunes(query, MaxQueryBytes)
	}
	n := x.Len()
	query, r.Framing = withoutFraming(query)
	r.Terms = x.queryTerms(query)
	if n == 0 || len(r.Terms) == 0 {
		return r
	}
	sc := x.getScratch()
	defer x.scratch.Put(sc)
	x.resolve(r, sc)
	if o.Related != nil && o.RelatedWeight > 0 {
		x.relate(r, o)
	}
	if skipPostings {
		x.readWindows(r, sc)
	} else {
		sc.slotAccums()
		x.accumulateExhaustive(r, sc)
		x.collect(r, sc)
	}
	return r
}

// queryTerms tokenises the query and orders its distinct terms: the
// MaxQueryTerms most informative first (in query order), marked active,
// then the rest.
func (x *Index) queryTerms(query string) []QueryTerm {
	var terms []QueryTerm
	seen := map[string]bool{}
	tokenize(query, func(t []byte, _ int) {
		if seen[string(t)] || isPossessive(t) {
			return
		}
		seen[string(t)] = true
		df := 0
		if id, ok := x.lookupBytes(t); ok {
			df = len(x.terms[id].slots)
		}
		terms = append(terms, QueryTerm{Text: string(t), DF: df})
	})
	if len(terms) > MaxQueryTerms {
		byDF := slices.Clone(terms)
		// Terms the vocabulary holds first, rarest first: a term it lacks
		// can only match through a fuzzy expansion, and those are capped.
		rarity := func(t QueryTerm) int {
			if t.DF == 0 {
				return math.MaxInt
			}
			return t.DF
		}
		slices.SortStableFunc(byDF, func(a, b QueryTerm) int { return cmp.Compare(rarity(a), rarity(b)) })
		keep := map[string]bool{}
		for _, t := range byDF[:MaxQueryTerms] {
			keep[t.Text] = true
		}
		slices.SortStableFunc(terms, func(a, b QueryTerm) int {
			return boolRank(keep[b.Text]) - boolRank(keep[a.Text])
		})
	}
	for i := range terms {
		terms[i].Active = i < MaxQueryTerms
	}
	return terms
}

// isPossessive reports whether a query token is a word with the
// possessive 's ("henrik's"). The tokenizer also gives its part
// ("henrik"), and the query keeps only that: the possessive is an
// inflection, so "Henrik's birthday" asks for what a record of "Henrik"
// holds, and counting both would give the name its information twice. A
// record's own "Henrik's" is indexed with its part too, so it still
// matches.
func isPossessive(t []byte) bool {
	n := len(t)
	switch {
	case n > 2 && t[n-2] == '\'' && t[n-1] == 's':
		return true
	case n > 4 && string(t[n-4:]) == "’s":
		return true
	}
	return false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resolve fills in each term's expansions, document frequency,
// information and informativeness, and the query's total information.
func (x *Index) resolve(r *Result, sc *searchScratch) {
	n := x.Len()
	fuzzy := 0
	for i := range r.Terms {
		t := &r.Terms[i]
		id, inVocab := x.lookup(t.Text)
		if t.Active && !inVocab && fuzzy < MaxFuzzyTerms {
			var overflow int
			t.Expansions, overflow = x.expand(t.Text, sc)
			t.Expansions = mergeExpansions(t.Expansions, x.variants(t.Text))
			if len(t.Expansions) > 0 {
				fuzzy++
				t.DF = x.unionDF(t.Expansions, sc)
				if overflow > 0 {
					t.DF = min(n, max(t.DF, overflow))
				}
			}
		} else if t.Active && inVocab && t.DF <= rank.InformativeDF(n) {
			// Only informative terms get variants: a common word's
			// variants are common too and would add long postings for
			// almost no information.
			if vs := x.variants(t.Text); len(vs) > 0 {
				t.Expansions = mergeExpansions([]Expansion{{Term: t.Text, Weight: 1, id: id}}, vs)
			}
		}
		t.Info = rank.TermInfo(n, t.DF)
		t.Informative = t.DF <= rank.InformativeDF(n)
		r.TotalInfo += t.Info
	}
}

// relate gives each active term that no record holds (DF 0 after
// resolve: no variant or misspelling either) the vocabulary terms that
// spell its relatives (o.Related) or their variants, at o.RelatedWeight
// (times VariantWeight for a variant). The term's document frequency and
// information stay what they were: a relative matches the term, it does
// not make the word any less rare (nor the question less novel:
// rank.Novelty still counts it).
func (x *Index) relate(r *Result, o Options) {
	for i := range r.Terms {
		t := &r.Terms[i]
		if !t.Active || t.DF != 0 {
			continue
		}
		var rel []Expansion
		for _, w := range o.Related(t.Text) {
			if id, ok := x.lookup(w); ok {
				rel = append(rel, Expansion{Term: w, Weight: o.RelatedWeight, id: id})
			}
			for _, v := range x.variants(w) {
				v.Weight *= o.RelatedWeight
				rel = append(rel, v)
			}
		}
		if len(rel) == 0 {
			continue
		}
		t.Expansions = mergeExpansions(t.Expansions, rel)
	}
}

// mergeExpansions joins two expansion lists, keeping each term once at
// its best weight, best first.
func mergeExpansions(a, b []Expansion) []Expansion {
	out := slices.Clone(a)
	for _, e := range b {
		if i := slices.IndexFunc(out, func(o Expansion) bool { return o.id == e.id }); i >= 0 {
			out[i].Weight = max(out[i].Weight, e.Weight)
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(p, q Expansion) int { return cmp.Compare(q.Weight, p.Weight) })
	return out
}

// nextGen starts a new generation of stamps: a slot is marked in it
// when its stamp equals the value returned.
func (sc *searchScratch) nextGen() uint32 {
	sc.gen++
	if sc.gen == 0 { // wrapped: restart the stamps
		clear(sc.stamp)
		sc.gen = 1
	}
	return sc.gen
}

// unionDF counts the records holding any of the expansions.
func (x *Index) unionDF(exps []Expansion, sc *searchScratch) int {
	gen := sc.nextGen()
	df := 0
	for _, e := range exps {
		for _, s := range x.terms[e.id].slots {
			if sc.stamp[s] != gen {
				sc.stamp[s] = gen
				df++
			}
		}
	}
	return df
}

// prefetchAhead is how many entries ahead collect asks for the
// accumulator (and record length) it will read.
const prefetchAhead = 16

// seekRatio is how much longer than the candidate list a posting list
// must be for pass 1 to seek in it rather than read it through: a seek
// costs a few comparisons where reading costs one per entry.
const seekRatio = 8

// skipPostings selects the windowed read (readWindows, which seeks in
// pass 1's long lists); the tests switch it off to compare against the
// exhaustive read.
var skipPostings = true

// anyInformative reports whether an active term is informative, so that
// records holding only some of the terms are answers too (OR).
func anyInformative(r *Result) bool {
	for _, t := range r.Terms {
		if !t.Active {
			break
		}
		if t.Informative {
			return true
		}
	}
	return false
}

// accumulateExhaustive reads every posting of every active term through,
// list after list, adding to each record's matched-term mask, its
// Σ weight·I(t) and its BM25 (pass 0: the seed terms' lists, which make
// the candidates; pass 1: the others', which only update them): the
// reference the windowed read (readWindows) must equal.
func (x *Index) accumulateExhaustive(r *Result, sc *searchScratch) {
	n := float64(x.Len())
	avgWords := max(float64(x.words)/n, 1)
	seeds := seedTerms(r)
	touched := sc.touched[:0]
	for pass := range 2 {
		for i, t := range r.Terms {
			if !t.Active {
				break
			}
			bit := uint64(1) << i
			if (seeds&bit != 0) != (pass == 0) {
				continue
			}
			idf := math.Log(1 + (n-float64(t.DF)+0.5)/(float64(t.DF)+0.5))
			lists := t.Expansions
			if len(lists) == 0 {
				id, ok := x.lookup(t.Text)
				if !ok {
					continue
				}
				lists = []Expansion{{Weight: 1, id: id}}
			}
			for _, e := range lists {
				pt := &x.terms[e.id]
				for j, s := range pt.slots {
					a := &sc.acc[s]
					if a.mask&bit != 0 || (a.mask == 0 && pass == 1) {
						continue
					}
					if a.mask == 0 {
						touched = append(touched, s)
					}
					a.mask |= bit
					a.num += e.Weight * t.Info
					tf := float64(pt.tfs[j])
					norm := bm25K1 * (1 - bm25B + bm25B*float64(x.info[s].words)/avgWords)
					a.bm += e.Weight * idf * tf * (bm25K1 + 1) / (tf + norm)
				}
			}
		}
	}
	sc.touched = touched
}

// postingCursor walks a sorted posting list forward by seeking: each seek
// gallops (1, 2, 4, … entries ahead) past the entries below the target,
// then bisects the last step, so k seeks over a list of L entries cost
// O(k·log(L/k)) comparisons rather than L. Seeks must come in ascending
// order.
type postingCursor struct {
	slots []uint32
	pos   int
}

// seek moves to the first entry ≥ s and reports its index and whether it
// is s.
func (c *postingCursor) seek(s uint32) (int, bool) {
	lo, step := c.pos, 1
	hi := lo
	for hi < len(c.slots) && c.slots[hi] < s {
		lo = hi + 1
		hi += step
		step <<= 1
	}
	hi = min(hi, len(c.slots))
	for lo < hi { // c.slots[lo-1] < s ≤ c.slots[hi], where they exist
		mid := int(uint(lo+hi) >> 1)
		if c.slots[mid] < s {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	c.pos = lo
	return lo, lo < len(c.slots) && c.slots[lo] == s
}

// done reports whether the cursor is past the last entry.
func (c *postingCursor) done() bool { return c.pos >= len(c.slots) }

// seedTerms returns the mask of the terms whose records are the only
// possible answers: the informative terms (an AND hit holds them all, an
// OR hit holds one), or, when there are none, the rarest term (OR is then
// empty, and an AND hit holds every term).
func seedTerms(r *Result) uint64 {
	var informative, rarest uint64
	rarestDF := math.MaxInt
	for i, t := range r.Terms {
		if !t.Active {
			break
		}
		if t.Informative {
			informative |= 1 << i
		}
		if t.DF > 0 && t.DF < rarestDF {
			rarest, rarestDF = 1<<i, t.DF
		}
	}
	if informative != 0 {
		return informative
	}
	return rarest
}

// collect picks the AND hits and the OR hits (the AND hits rank first;
// see compareRank), and clears the accumulators it used. Keeping the OR
// hits behind a non-empty AND set matters when AND holds only a few
// records: a record missing one word of a nine-word question is still a
// literal match, and on LongMemEval dropping them cost 5 points of
// session recall_all@5 and 2.4 of ndcg_any@10.
func (x *Index) collect(r *Result, sc *searchScratch) {
	var all, informative uint64
	for i, t := range r.Terms {
		if !t.Active {
			break
		}
		all |= 1 << i
		if t.Informative {
			informative |= 1 << i
		}
	}
	// One pass over the records touched (each a random access into the
	// accumulators): the hits kept go into a released result's hits,
	// grown when they do not fit.
	r.hits = nil
	if p, _ := x.hitPool.Get().(*[]Hit); p != nil {
		r.hits = (*p)[:0]
	}
	if cap(r.hits) < len(sc.touched)/4 {
		r.hits = make([]Hit, 0, len(sc.touched))
	}
	anyAll := false
	for i, s := range sc.touched {
		if k := i + prefetchAhead; k < len(sc.touched) {
			t := sc.touched[k]
			simd.Prefetch(&sc.acc[t])
			simd.Prefetch(&x.info[t])
		}
		a := sc.acc[s]
		sc.acc[s] = accum{}
		sc.held[s>>6] = 0
		if a.mask == all {
			anyAll = true
		} else if a.mask&informative == 0 {
			continue
		}
		if p := rank.PLex(a.num, r.TotalInfo); p > 0 {
			r.hits = append(r.hits, Hit{Doc: x.info[s].doc, slot: s, PLex: p, BM25: a.bm, Matched: a.mask, All: a.mask == all})
		}
	}
	switch {
	case len(r.hits) == 0:
		r.Mode = ModeNone
	case anyAll:
		r.Mode = ModeAND
	case informative != 0:
		r.Mode = ModeOR
	}
}

// truncateRunes cuts s to at most n bytes without splitting a rune.
func truncateRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
