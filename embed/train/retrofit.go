package train

import (
	"sort"

	"github.com/compartment/compartment/embed"
)

// lexicon is a synonym graph over vocabulary ids, from WordNet synsets, the
// OpenOffice thesaurus and ding's lists of English words translating the
// same German word.
type lexicon struct {
	neighbours [][]edge
}

// edge is a lexicon link with its weight (1 for synonyms, less for
// hypernyms).
type edge struct {
	to int32
	w  float64
}

// commonWords is how many of the most frequent vocabulary words (function
// words, mostly) are never a target of an acronym link.
const commonWords = 150

// buildLexicon links every pair of single-word vocabulary entries that share
// a synset, a thesaurus sense or a ding translation list. Multi-word entries
// are left out: their words are linked through co-occurrence instead.
func buildLexicon(cfg Config, v *vocab, index map[string]int32) (*lexicon, error) {
	cache := cfg.Cache
	sets := map[int32]map[int32]float64{}
	ids := func(group []string) []int32 {
		var ids []int32
		for _, g := range group {
			w := embed.StaticWords(g)
			if len(w) != 1 {
				continue
			}
			if id, ok := index[w[0]]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) > 12 { // huge groups are loose senses; they blur more than they teach
			ids = ids[:12]
		}
		return ids
	}
	connect := func(from, to []int32, w float64) {
		if w <= 0 {
			return
		}
		for _, a := range from {
			for _, b := range to {
				if a == b {
					continue
				}
				if sets[a] == nil {
					sets[a] = map[int32]float64{}
				}
				sets[a][b] = max(sets[a][b], w)
			}
		}
	}
	link := func(group []string) {
		g := ids(group)
		connect(g, g, 1)
	}
	synsets := map[string][]string{}
	var all []synset
	err := forEachSynset(cache+"/pkg/wordnet-base", func(s synset) {
		link(s.lemmas)
		synsets[s.key] = s.lemmas
		all = append(all, s)
	})
	if err != nil {
		return nil, err
	}
	hypernyms := map[string][]string{}
	for _, s := range all {
		hypernyms[s.key] = s.hypernyms
	}
	for _, s := range all {
		from := ids(s.lemmas)
		// Ancestors up to HypernymDepth levels, the weight halving per level.
		level, w := s.hypernyms, cfg.HypernymWeight
		for depth := 0; depth < max(1, cfg.HypernymDepth) && len(level) > 0; depth++ {
			var next []string
			for _, h := range level {
				to := ids(synsets[h])
				connect(from, to, w)
				connect(to, from, w)
				next = append(next, hypernyms[h]...)
			}
			level, w = next, w/2
		}
		for _, r := range s.related {
			to := ids(synsets[r])
			connect(from, to, cfg.RelatedWeight)
			connect(to, from, cfg.RelatedWeight)
		}
	}
	err = forEachMythes(cache+"/pkg/mythes-en-us", func(head string, syns []string) {
		link(append([]string{head}, syns...))
	})
	if err != nil {
		return nil, err
	}
	if err := forEachDing(cache+"/pkg/dict-de-en", link); err != nil {
		return nil, err
	}
	// An acronym is pulled towards the content words of its expansion (one
	// way: "customer" must not drift towards every acronym with a C).
	err = forEachAcronym(cache, func(acronym, expansion string) {
		a := ids([]string{acronym})
		var words []int32
		for _, w := range embed.StaticWords(expansion) {
			if id, ok := index[w]; ok && id >= commonWords {
				words = append(words, id)
			}
		}
		connect(a, words, cfg.AcronymWeight)
	})
	if err != nil {
		return nil, err
	}
	lx := &lexicon{neighbours: make([][]edge, len(v.words))}
	for a, set := range sets {
		for b, w := range set {
			lx.neighbours[a] = append(lx.neighbours[a], edge{b, w})
		}
		nb := lx.neighbours[a]
		sort.Slice(nb, func(i, j int) bool { return nb[i].to < nb[j].to })
	}
	return lx, nil
}

// retrofit pulls each word vector towards its lexicon neighbours (Faruqui
// et al. 2015): q_i ← (α·q̂_i + β·mean_j q_j) / (α + β), iterated. A word
// with no corpus vector (all zeros) takes the mean of its neighbours. The
// update is Jacobi-style (new vectors from the previous iteration's), so it
// is order-independent and parallel-safe.
func retrofit(vecs dense, lx *lexicon, alpha, beta float64, iters int) dense {
	orig := vecs
	cur := dense{vecs.r, vecs.c, append([]float64(nil), vecs.a...)}
	for it := 0; it < iters; it++ {
		next := newDense(cur.r, cur.c)
		parallelRows(cur.r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out := next.row(i)
				nb := lx.neighbours[i]
				o := orig.row(i)
				a := alpha
				if dot(o, o) == 0 {
					a = 0
				}
				if len(nb) == 0 {
					copy(out, cur.row(i))
					continue
				}
				axpy(a, o, out)
				var total float64
				for _, e := range nb {
					total += e.w
				}
				for _, e := range nb {
					axpy(beta*e.w/total, cur.row(int(e.to)), out)
				}
				inv := 1 / (a + beta)
				for k := range out {
					out[k] *= inv
				}
			}
		})
		cur = next
	}
	return cur
}
