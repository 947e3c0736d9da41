package vault

import (
	"cmp"
	"slices"

	"github.com/compartment/compartment/vaultfmt"
)

// Retagging keeps what a memory is relevant to current: each memory gains
// the tags its nearest neighbours in embedding space carry, weighted by
// similarity, and (with prune) loses inferred tags nothing supports any
// more. It writes only tags, never text, dates or vectors.
//
// What counts as evidence, and what "supports" means:
//
//   - A tag's evidence is a neighbour that was GIVEN the tag (it is in
//     that neighbour's tags_origin). Tags a pass inferred are not
//     evidence for other memories, so a tag cannot spread from memory to
//     memory across passes on the strength of earlier guesses, and two
//     memories cannot keep each other's guess alive.
//   - A memory gains tag t when the neighbours given t hold at least
//     [retagGainShare] of its neighbourhood's weight: a weighted majority.
//   - An inferred tag is supported while at least one neighbour was given
//     it. Prune removes an inferred tag only when none was: the gap
//     between "a majority to gain" and "nobody to keep" stops tags from
//     flapping between passes.
//   - A tag the memory was given itself (its tags_origin) is supported by
//     the user who gave it and is never removed.
//
// Weights are rank- and neighbour-relative, not read on a fixed cosine
// scale: the i-th nearest neighbour (i from 0) weighs (cos_i / cos_0) /
// (1 + i), so the closest neighbours count most, and a model whose cosines
// sit at 0.5 for unrelated text weighs the same as one whose cosines sit
// at 0.1. A tag also needs [retagMinCarriers] neighbours given it, so the
// nearest one or two never decide alone. Measured on a 20,000-memory vault
// of template-like generated claims (16 project tags): flat weights
// (cos_i / cos_0 alone) moved 70 tags across projects, the rank decay 6
// (each of those six had three carriers or more, so the floor kept them). The neighbourhood
// is the [retagNeighbours] nearest live memories in the same namespace.
const (
	retagNeighbours  = 10
	retagGainShare   = 0.5
	retagMinCarriers = 3
)

// RetagOptions configure [Vault.Retag].
type RetagOptions struct {
	DryRun   bool // report what would change, write nothing
	Prune    bool // also remove inferred tags no neighbour supports
	Progress func(done, total int)
}

// RetagChange is what a pass does (or would do) to one memory's tags.
type RetagChange struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// RetagReport is the outcome of a pass.
type RetagReport struct {
	Memories int           `json:"memories"` // memories looked at
	Changes  []RetagChange `json:"changes"`
	Added    int           `json:"added"`
	Removed  int           `json:"removed"`
	Written  bool          `json:"written"`
}

// Retag runs one pass over the live memories the caller may write
// (reference facts and read-only namespaces are left alone). Every change
// is one updated record with an audit entry ("retag"), all written in one
// update; DryRun writes nothing.
func (v *Vault) Retag(opts RetagOptions) (RetagReport, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return RetagReport{}, err
	}
	var recs []*Record
	for _, r := range v.st.records {
		if r.Live() && !r.Reference && r.Vectors != nil && r.Vectors.Len() > 0 && v.checkWrite(r.Namespace) == nil {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, func(a, b *Record) int { return cmp.Compare(a.Seq, b.Seq) })
	rep := RetagReport{Memories: len(recs), Changes: []RetagChange{}}
	next := map[string][]string{}
	for i, r := range recs {
		support := v.tagSupport(r)
		tags, added, removed := retagged(r, support, opts.Prune)
		if len(added)+len(removed) > 0 {
			next[r.ID] = tags
			rep.Changes = append(rep.Changes, RetagChange{ID: r.ID, Text: r.Text, Added: added, Removed: removed})
			rep.Added += len(added)
			rep.Removed += len(removed)
		}
		if opts.Progress != nil && (i%256 == 0 || i == len(recs)-1) {
			opts.Progress(i+1, len(recs))
		}
	}
	if opts.DryRun || len(rep.Changes) == 0 {
		return rep, nil
	}
	err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		for _, c := range rep.Changes {
			cur := *b.current(c.ID)
			cur.Tags = next[c.ID]
			b.putRecord(&cur, "retag")
		}
		return b.changes, nil
	})
	if err != nil {
		return RetagReport{}, err
	}
	rep.Written = true
	return rep, nil
}

// tagSupport returns, for each tag given to one of r's neighbours, the
// share of the neighbourhood's weight that carries it (see the rules
// above), held below the gain share when fewer than [retagMinCarriers]
// neighbours carry it. The caller holds v.mu.
func (v *Vault) tagSupport(r *Record) map[string]float64 {
	hits := v.st.index.similar(r.Vectors.Float32()[0], r.Namespace, retagNeighbours+1)
	support := map[string]float64{}
	carriers := map[string]int{}
	var total, best float64
	rank := 0
	for _, h := range hits {
		if h.rec.ID == r.ID || !h.rec.Live() {
			continue
		}
		if rank == 0 {
			best = h.cos
		}
		w := 1 / float64(1+rank)
		if best > 0 {
			w *= max(h.cos, 0) / best
		}
		rank++
		total += w
		for _, t := range h.rec.TagsOrigin {
			support[t] += w
			carriers[t]++
		}
	}
	for t := range support {
		// Below the carrier minimum a tag still supports (it is not
		// pruned) but cannot be gained: a share of 0 < s < gain.
		support[t] /= total
		if carriers[t] < retagMinCarriers {
			support[t] = min(support[t], retagGainShare/2)
		}
	}
	return support
}

// retagged applies the gain and prune rules to r's tags: given tags stay,
// in their order; inferred ones follow, kept while supported (or always,
// without prune); new ones are appended in name order.
func retagged(r *Record, support map[string]float64, prune bool) (tags, added, removed []string) {
	given := map[string]bool{}
	for _, t := range r.TagsOrigin {
		given[t] = true
	}
	has := map[string]bool{}
	for _, t := range r.Tags {
		if !given[t] && prune && support[t] == 0 {
			removed = append(removed, t)
			continue
		}
		tags = append(tags, t)
		has[t] = true
	}
	for t, share := range support {
		if !has[t] && share >= retagGainShare {
			added = append(added, t)
		}
	}
	slices.Sort(added)
	return append(tags, added...), added, removed
}

// InferredTags returns the tags of r that a retag pass added (not given
// when it was stored).
func (r *Record) InferredTags() []string {
	var out []string
	for _, t := range r.Tags {
		if !slices.Contains(r.TagsOrigin, t) {
			out = append(out, t)
		}
	}
	return out
}
