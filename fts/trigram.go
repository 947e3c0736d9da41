package fts

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The trigram index is over the vocabulary, not over documents: each term
// is padded as ^term$ and every distinct run of three runes points at the
// terms that contain it. A query term that is not in the vocabulary finds
// its stand-ins there (terms that contain it, or that are one or two
// edits away), and those terms' postings find the documents. That keeps
// the index small (a term's trigrams are stored once however many records
// hold it) and the matching explainable: every fuzzy hit names the word it
// stood in for.

// Pad runes mark the start and end of a term; they lie above the Unicode
// range, so no text rune collides with them.
const (
	padStart rune = 0x110000
	padEnd   rune = 0x110001
)

// Limits on fuzzy matching, which runs only for query terms missing from
// the vocabulary.
const (
	// MinFuzzyRunes is the shortest query term matched by fragment or
	// edit distance: shorter ones are too ambiguous to stand for a word.
	MinFuzzyRunes = 4
	// MaxExpansions is how many vocabulary terms one query term may stand
	// for. Past it the fragment is common; the term's document frequency is
	// then bounded by the sum over all its candidates, so its information
	// shrinks as it should.
	MaxExpansions = 64
	// MaxFuzzyTerms is how many out-of-vocabulary terms of one query get
	// fuzzy matching, which bounds the work a long query of junk can cause.
	MaxFuzzyTerms = 8
	// MaxEditChecks bounds the edit-distance checks for one query term;
	// candidates sharing the most trigrams are checked first.
	MaxEditChecks = 256
)

// gramKey packs three runes (each < 2²¹) into one map key.
func gramKey(a, b, c rune) uint64 {
	return uint64(a)<<42 | uint64(b)<<21 | uint64(c)
}

// padded returns ^text$ as runes.
func padded(text string) []rune {
	rs := make([]rune, 0, utf8.RuneCountInString(text)+2)
	rs = append(rs, padStart)
	for _, r := range text {
		rs = append(rs, r)
	}
	return append(rs, padEnd)
}

// termGrams returns the distinct padded trigrams of text.
func termGrams(text string) []uint64 {
	rs := padded(text)
	if len(rs) < 3 {
		return nil
	}
	keys := make([]uint64, 0, len(rs)-2)
	for i := 0; i+2 < len(rs); i++ {
		keys = append(keys, gramKey(rs[i], rs[i+1], rs[i+2]))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// isInner reports whether a trigram holds no pad rune: only those can
// occur inside a longer term, so only those count for containment.
func isInner(key uint64) bool {
	a, c := rune(key>>42), rune(key&(1<<21-1))
	return a != padStart && c != padEnd
}

// fuzzyIndex is the trigram and prefix lists of the fresh terms (see
// vocab.go).
type fuzzyIndex struct {
	grams    map[uint64][]uint32 // padded trigram → sorted ids of live terms
	prefixes map[string][]uint32 // first MinVariantPrefix runes → sorted term ids
}

func newFuzzyIndex() *fuzzyIndex {
	return &fuzzyIndex{grams: map[uint64][]uint32{}, prefixes: map[string][]uint32{}}
}

func (f *fuzzyIndex) add(id uint32, text string) {
	if p, ok := variantKey(text); ok {
		f.prefixes[p] = insertSorted(f.prefixes[p], id)
	}
	for _, g := range termGrams(text) {
		f.grams[g] = insertSorted(f.grams[g], id)
	}
}

// insertSorted inserts id into a sorted list; new ids are usually the
// largest, so that case appends.
func insertSorted(list []uint32, id uint32) []uint32 {
	if n := len(list); n == 0 || list[n-1] < id {
		return append(list, id)
	}
	i, _ := slices.BinarySearch(list, id)
	return slices.Insert(list, i, id)
}

func (f *fuzzyIndex) remove(id uint32, text string) {
	if p, ok := variantKey(text); ok {
		list := f.prefixes[p]
		if i, found := slices.BinarySearch(list, id); found {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(f.prefixes, p)
		} else {
			f.prefixes[p] = list
		}
	}
	for _, g := range termGrams(text) {
		list := f.grams[g]
		if i, ok := slices.BinarySearch(list, id); ok {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(f.grams, g)
		} else {
			f.grams[g] = list
		}
	}
}

// Expansion is a vocabulary term standing in for a query term that is not
// in the vocabulary, with the share of the query term's information a
// document holding it earns.
type Expansion struct {
	Term   string
	Weight float64 // 1 for containment; 1 − 2·edits/len for a misspelling
	Edits  int     // 0 when the query term is contained in Term
	id     uint32
}

// maxEdits is the edit distance tolerated for a query term of n runes.
func maxEdits(n int) int {
	if n >= 8 {
		return 2
	}
	return 1
}

// expand finds the vocabulary terms that stand in for q, a term missing
// from the vocabulary: terms that contain q (a SHA prefix, a fragment of
// a path), with weight 1, and terms within [maxEdits] edits of q (a
// misspelling), with weight 1 − 2·edits/len(q). It returns them best
// first, at most [MaxExpansions], and a bound on how many documents hold
// any of them when the candidates overflowed that cap (else 0).
func (x *Index) expand(q string, sc *searchScratch) ([]Expansion, int) {
	qr := []rune(q)
	if len(qr) < MinFuzzyRunes {
		return nil, 0
	}
	grams := termGrams(q)
	inner := 0
	for _, g := range grams {
		if isInner(g) {
			inner++
		}
	}
	edits := maxEdits(len(qr))
	var out []Expansion
	sc.countGrams(x, grams)
	// Containment is decided at once; edit candidates wait in buckets by
	// shared trigrams, so the likeliest are checked first and at most
	// MaxEditChecks are.
	buckets := sc.buckets[:0]
	for range len(grams) + 1 {
		buckets = append(buckets, nil)
	}
	for _, id := range sc.gramTouched {
		c := sc.gramHits[id]
		sc.gramHits[id] = gramCount{}
		tm := &x.terms[id]
		if int(c.inner) == inner && tm.runes > len(qr) && strings.Contains(tm.text, q) {
			out = append(out, Expansion{Term: tm.text, Weight: 1, id: id})
			continue
		}
		// An edit (or a transposition) changes at most four padded
		// trigrams, and the lengths differ by at most the edits.
		if int(c.all) >= len(grams)-4*edits && abs(tm.runes-len(qr)) <= edits {
			n := min(int(c.all), len(grams))
			buckets[n] = append(buckets[n], id)
		}
	}
	checks := 0
	for n := len(buckets) - 1; n >= 0 && checks < MaxEditChecks; n-- {
		for _, id := range buckets[n] {
			if checks++; checks > MaxEditChecks {
				break
			}
			t := x.terms[id].text
			sc.runes = append(sc.runes[:0], []rune(t)...)
			if d := sc.editDistance(qr, sc.runes, edits); d <= edits {
				out = append(out, Expansion{Term: t, Weight: 1 - 2*float64(d)/float64(len(qr)), Edits: d, id: id})
			}
		}
		buckets[n] = buckets[n][:0]
	}
	sc.buckets = buckets
	slices.SortFunc(out, func(a, b Expansion) int {
		if a.Weight != b.Weight {
			if a.Weight > b.Weight {
				return -1
			}
			return 1
		}
		return len(x.terms[b.id].slots) - len(x.terms[a.id].slots)
	})
	overflow := 0
	if len(out) > MaxExpansions {
		for _, e := range out {
			overflow += len(x.terms[e.id].slots)
		}
		out = out[:MaxExpansions]
	}
	return out, overflow
}

// gramCount is how many of a query term's trigrams a vocabulary term holds.
type gramCount struct {
	inner, all uint16
}

// countGrams counts, per vocabulary term, the query trigrams it shares,
// into the dense per-term counters sc.gramHits, listing the terms touched
// in sc.gramTouched (the caller clears their counters). The cost is the
// total length of the trigram postings read.
func (sc *searchScratch) countGrams(x *Index, grams []uint64) {
	if len(sc.gramHits) < len(x.terms) {
		sc.gramHits = make([]gramCount, len(x.terms))
	}
	touched := sc.gramTouched[:0]
	for _, g := range grams {
		in := isInner(g)
		x.withGram(g, func(id uint32) {
			h := &sc.gramHits[id]
			if h.all == 0 {
				touched = append(touched, id)
			}
			h.all++
			if in {
				h.inner++
			}
		})
	}
	sc.gramTouched = touched
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions),
// giving up with limit+1 as soon as it must exceed limit. It reuses the
// scratch rows.
func (sc *searchScratch) editDistance(a, b []rune, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	for i := range sc.rows {
		sc.rows[i] = slices.Grow(sc.rows[i][:0], len(b)+1)[:len(b)+1]
	}
	prev2, prev, cur := sc.rows[0], sc.rows[1], sc.rows[2]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Variants: other forms of a query term's word (doctor/doctors,
// attend/attended/attending, study/studies, shop/shopping,
// participate/participating) count as the term at a discount. Two terms
// are forms of one word when, past their common start, each ends in one of
// a few English inflectional endings (after undoing a doubled final
// consonant). That is the one concession to morphology: no stemmer and no
// dictionary, and a pair the endings do not explain is two words
// (even/event, week/weekend, friend/friendly, relate/relation,
// expenses/expensive), which a bare shape rule ("differs in the last three
// letters") used to conflate.
const (
	// MinVariantPrefix is the shortest common start that makes a variant.
	MinVariantPrefix = 4

	// VariantWeight is the share of a term's information a variant earns:
	// the weight of one edit in an eight-letter word. On LongMemEval_S dev
	// 0.5 to 0.9 score within a point of each other; 1 (a variant is the
	// word) is worse.
	VariantWeight = 0.75
)

// inflectionEndings are the endings in which two forms of a word may
// differ: plurals and verb forms (-s, -es, -ies, -ed, -d, -ied, -ing, a
// silent -e, -y) and comparison or agent (-er, -ers, -est).
var inflectionEndings = map[string]bool{
	"": true, "s": true, "es": true, "ies": true,
	"ed": true, "d": true, "ied": true, "ing": true, "e": true, "y": true,
	"er": true, "ers": true, "est": true,
}

// maxInflection is the most runes an inflected form adds: a doubled
// consonant and a three-letter ending (shop → shopping).
const maxInflection = 4

// variants returns the vocabulary terms other than q that are forms of
// q's word: its irregular forms (see [irregularForms]) and, for a word of
// MinVariantPrefix runes or more, its inflections (see [inflected]), whose
// candidates share q's first MinVariantPrefix runes, so the prefix index
// lists them all.
func (x *Index) variants(q string) []Expansion {
	out := x.irregularVariants(q)
	key, ok := variantKey(q)
	if !ok {
		return out
	}
	qn := utf8.RuneCountInString(q)
	x.prefixed(key, func(id uint32) {
		t := &x.terms[id]
		if t.text != q && abs(t.runes-qn) <= maxInflection && inflected(q, t.text) {
			out = append(out, Expansion{Term: t.text, Weight: VariantWeight, id: id})
		}
	})
	return out
}

// inflected reports whether a and b are forms of one word: past their
// common start (at least MinVariantPrefix runes, which the caller's prefix
// index guarantees), each is empty or an inflectional ending, once a
// doubled final consonant on one side is undone (plan/planned,
// shop/shopping) or an e the common start took is given back
// (later/latest). Endings are ASCII, so a common start that stops inside
// a multi-byte rune leaves a remainder no ending matches.
func inflected(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	ra, rb := a[n:], b[n:]
	if n > 0 {
		last := a[n-1]
		switch {
		case len(ra) > 0 && ra[0] == last:
			ra = ra[1:]
		case len(rb) > 0 && rb[0] == last:
			rb = rb[1:]
		}
	}
	if inflectionEndings[ra] && inflectionEndings[rb] {
		return true
	}
	// The common start may have taken an ending's e (late/later/latest).
	return n > 0 && a[n-1] == 'e' && inflectionEndings["e"+ra] && inflectionEndings["e"+rb]
}

// variantKey is the first MinVariantPrefix runes of a term: every variant
// of a term shares them, so the prefix index keyed by them lists every
// candidate.
func variantKey(text string) (string, bool) {
	n := 0
	for i := range text {
		if n == MinVariantPrefix {
			return text[:i], true
		}
		n++
	}
	return text, n == MinVariantPrefix
}
