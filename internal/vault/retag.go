package vault

import (
	"bytes"
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
	// Skipped counts changes not written because the memory was
	// forgotten, superseded or changed while the pass ran.
	Skipped int `json:"skipped,omitempty"`
}

// Retag runs one pass over the live memories the caller may write
// (reference facts and read-only namespaces are left alone). Every change
// is one updated record with an audit entry ("retag"), all written in one
// update; DryRun writes nothing.
//
// The pass does not hold the vault for its whole length (the server runs
// it in the background while agents search): it takes v.mu once to list
// the memories, once per memory to ask the index for its neighbours, and
// once more to write. The write re-reads every record it changes: one
// forgotten, superseded or rewritten since the pass looked at it is left
// as it now is (counted in Skipped) for the next pass to judge, so a pass
// never resurrects a memory or overwrites a newer change.
func (v *Vault) Retag(opts RetagOptions) (RetagReport, error) {
	recs, err := v.retagCandidates()
	if err != nil {
		return RetagReport{}, err
	}
	rep := RetagReport{Memories: len(recs), Changes: []RetagChange{}}
	next := map[string]retagPlan{}
	for i, r := range recs {
		support, err := v.lockedTagSupport(r)
		if err != nil {
			return RetagReport{}, err
		}
		tags, added, removed := retagged(r, support, opts.Prune)
		if len(added)+len(removed) > 0 {
			next[r.ID] = retagPlan{seen: r, tags: tags}
			rep.Changes = append(rep.Changes, RetagChange{ID: r.ID, Text: r.Text, Added: added, Removed: removed})
		}
		if opts.Progress != nil && (i%256 == 0 || i == len(recs)-1) {
			opts.Progress(i+1, len(recs))
		}
	}
	if opts.DryRun || len(rep.Changes) == 0 {
		rep.count()
		return rep, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return RetagReport{}, err
	}
	var written []RetagChange
	err = v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		written = written[:0]
		for _, c := range rep.Changes {
			cur := b.current(c.ID)
			if !next[c.ID].stillCurrent(cur) {
				continue
			}
			up := *cur
			up.Tags = next[c.ID].tags
			b.putRecord(&up, "retag")
			written = append(written, c)
		}
		return b.changes, nil
	})
	if err != nil {
		return RetagReport{}, err
	}
	rep.Skipped = len(rep.Changes) - len(written)
	rep.Changes = written
	rep.count()
	rep.Written = len(written) > 0
	return rep, nil
}

// retagPlan is the tags a pass chose for one record, and the record as it
// was when the pass chose them.
type retagPlan struct {
	seen *Record
	tags []string
}

// stillCurrent reports whether cur (the record as the write finds it) is
// the one the plan was made for: still there, still live, and unchanged
// since. A record read again from the file (another process wrote or
// compacted) is a new value with the same content, so the comparison
// falls back to the encoded bytes.
func (p retagPlan) stillCurrent(cur *Record) bool {
	if cur == nil || !cur.Live() {
		return false
	}
	return cur == p.seen || bytes.Equal(encodeRecord(cur), encodeRecord(p.seen))
}

// count sums the tags the report's changes add and remove.
func (rep *RetagReport) count() {
	rep.Added, rep.Removed = 0, 0
	for _, c := range rep.Changes {
		rep.Added += len(c.Added)
		rep.Removed += len(c.Removed)
	}
}

// retagCandidates lists, under v.mu, the memories a pass looks at, oldest
// first. Records are never changed in place (a change stores a new
// value), so the pass may read them after the lock is released.
func (v *Vault) retagCandidates() ([]*Record, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	// A walk, not all: a server retags every few hours, and building every
	// row kept the whole vault as *Records from its first pass on. A row's
	// record is the pass's own copy; the write compares it with the
	// current record by its bytes (retagPlan.stillCurrent).
	var recs []*Record
	v.st.records.each(func(r *Record, _ int) bool {
		if r.Live() && !r.Reference && r.Vectors != nil && r.Vectors.Len() > 0 && v.checkWrite(r.Namespace) == nil {
			recs = append(recs, r)
		}
		return true
	})
	slices.SortFunc(recs, func(a, b *Record) int { return cmp.Compare(a.Seq, b.Seq) })
	return recs, nil
}

// lockedTagSupport is [Vault.tagSupport] under v.mu for one record: the
// index is shared with every other call, and holding the lock for one
// neighbour query at a time lets a search in between.
func (v *Vault) lockedTagSupport(r *Record) (map[string]float64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file == nil {
		return nil, ErrLocked
	}
	return v.tagSupport(r), nil
}

// tagSupport returns, for each tag given to one of r's neighbours, the
// share of the neighbourhood's weight that carries it (see the rules
// above), held below the gain share when fewer than [retagMinCarriers]
// neighbours carry it. The caller holds v.mu.
func (v *Vault) tagSupport(r *Record) map[string]float64 {
	hits := v.st.index.similarPeek(r.Vectors.Float32()[0], r.Namespace, retagNeighbours+1)
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
