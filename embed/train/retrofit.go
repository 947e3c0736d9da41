package train

import (
	"sort"

	"github.com/compartment/compartment/embed"
)

// lexicon is a synonym graph over vocabulary ids, from WordNet synsets, the
// OpenOffice thesaurus and ding's lists of English words translating the
// same German word.
type lexicon struct {
	neighbours [][]int32
}

// buildLexicon links every pair of single-word vocabulary entries that share
// a synset, a thesaurus sense or a ding translation list. Multi-word entries
// are left out: their words are linked through co-occurrence instead.
func buildLexicon(cache string, v *vocab, index map[string]int32) (*lexicon, error) {
	sets := map[int32]map[int32]bool{}
	link := func(group []string) {
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
		for _, a := range ids {
			for _, b := range ids {
				if a == b {
					continue
				}
				if sets[a] == nil {
					sets[a] = map[int32]bool{}
				}
				sets[a][b] = true
			}
		}
	}
	err := forEachSynset(cache+"/pkg/wordnet-base", func(s synset) { link(s.lemmas) })
	if err != nil {
		return nil, err
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
	lx := &lexicon{neighbours: make([][]int32, len(v.words))}
	for a, set := range sets {
		for b := range set {
			lx.neighbours[a] = append(lx.neighbours[a], b)
		}
		sort.Slice(lx.neighbours[a], func(i, j int) bool { return lx.neighbours[a][i] < lx.neighbours[a][j] })
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
				b := beta / float64(len(nb))
				for _, j := range nb {
					axpy(b, cur.row(int(j)), out)
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
