package vault

import (
	"sort"
	"strings"
	"unicode"
)

// index holds the live records in the shapes search needs.
//
// Placeholder until internal/search lands: literal matching by substring
// and brute-force cosine over stored vectors.
type index struct {
	v    *Vault
	live map[string]*Record
}

func newIndex(v *Vault) *index { return &index{v: v, live: map[string]*Record{}} }

func (ix *index) add(r *Record)    { ix.live[r.ID] = r }
func (ix *index) remove(r *Record) { delete(ix.live, r.ID) }

// similarHit is a live record and its best-window cosine to a vector.
type similarHit struct {
	rec *Record
	cos float64
}

// similar returns up to k live records in namespace nearest to vec.
func (ix *index) similar(vec []float32, namespace string, k int) []similarHit {
	var hits []similarHit
	for _, r := range ix.live {
		if r.Namespace != namespace || !ix.v.hasCurrentVectors(r) {
			continue
		}
		hits = append(hits, similarHit{r, bestCos(r.Vectors.Float32(), vec)})
	}
	sortHits(hits)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// sameText returns live records in namespace whose claim equals text,
// ignoring case and spacing: the similarity checks' stand-in when the vault
// has no semantic channel.
func (ix *index) sameText(text, namespace string) []*Record {
	key := normalizeClaim(text)
	var out []*Record
	for _, r := range ix.live {
		if r.Namespace == namespace && normalizeClaim(r.Text) == key {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// normalizeClaim folds case, spacing and punctuation at word edges, so
// "The port is 5433." and "the port is  5433" compare equal.
func normalizeClaim(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = strings.TrimFunc(w, unicode.IsPunct)
	}
	return strings.Join(words, " ")
}

// bestCos is a record's score against vec: its best window.
func bestCos(windows [][]float32, vec []float32) float64 {
	best := -2.0
	for _, w := range windows {
		var s float64
		for i := range w {
			s += float64(w[i]) * float64(vec[i])
		}
		best = max(best, s)
	}
	return best
}

func sortHits(hits []similarHit) {
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].cos != hits[j].cos {
			return hits[i].cos > hits[j].cos
		}
		return hits[i].rec.Seq < hits[j].rec.Seq
	})
}
