package vault

import "slices"

// Opinions across namespaces. Each agent stores into its own namespace
// (its default: "main" for the user, the agent's name for an agent), but an
// opinion is the holder's, not the agent's: a new opinion stored in its
// writer's default namespace (or in main) meets the live opinions that
// other writers keep in theirs and in main, in every namespace the caller
// can read. A namespace
// named on purpose (a project, a client) is a compartment: only its own
// opinions meet a new one there. A changed opinion whose older one lives in another namespace comes back
// as a conflict naming that record (and its namespace), like one in the
// same namespace. Resent with supersedes, it replaces the older one when
// the caller may write there; when the caller may only read there, the
// older one stays as it is and a relation
//
//	new-id –updates→ old-id   (predicate [PredicateUpdates], src new-id)
//
// is written in the new record's namespace instead. Search then ranks the
// newer opinion first and marks the older with updated_by
// ([Vault.currentOpinionsFirst]), across every namespace it reads.

// PredicateUpdates is the relation predicate that says a newer opinion
// updates an older one the writer could not supersede (FORMAT.md 3.3).
// Part of the format: do not change.
const PredicateUpdates = "updates"

// opinionsSimilarTo finds live opinions similar to r, best first: in r's
// namespace and, when r goes to its writer's default namespace, in the
// default namespaces of the other writers the caller can read (reference
// facts and packs aside); by cosine when the vault has vectors, by
// identical text otherwise.
func (v *Vault) opinionsSimilarTo(b *batch, r *Record) []similarHit {
	// The user's own namespace is home whoever wrote there.
	mainNS := v.cfg.DefaultNamespace("user")
	home := func(rec *Record) bool {
		return rec.Namespace == mainNS || rec.Namespace == v.cfg.DefaultNamespace(rec.Caller)
	}
	across := home(r)
	keep := func(rec *Record) bool {
		if rec == nil || rec.Kind != KindOpinion || rec.Reference {
			return false
		}
		return rec.Namespace == r.Namespace || across && home(rec) && !isPack(rec.Namespace) && v.canRead(rec.Namespace)
	}
	var hits []similarHit
	if r.Vectors == nil {
		for ns := range v.st.index.namespaces {
			for _, rec := range v.st.index.sameText(r.Text, ns) {
				if keep(rec) {
					hits = append(hits, similarHit{rec, 1})
				}
			}
		}
		for _, rec := range b.placed {
			if keep(rec) && normalizeClaim(rec.Text) == normalizeClaim(r.Text) {
				hits = append(hits, similarHit{rec, 1})
			}
		}
	} else {
		vec := r.Vectors.Float32()[0]
		ix := v.st.index
		near, err := ix.engine.Nearest(vec, 8, func(doc uint32) bool { return keep(ix.recOf[doc]) })
		if err == nil {
			for _, n := range near {
				hits = append(hits, similarHit{ix.recOf[n.Doc], n.Cos})
			}
		}
		for _, rec := range b.placed {
			if keep(rec) && rec.Vectors != nil {
				hits = append(hits, similarHit{rec, bestCos(rec.Vectors.Float32(), vec)})
			}
		}
	}
	live := hits[:0]
	for _, h := range hits {
		if cur := b.current(h.rec.ID); cur != nil && cur.Live() {
			live = append(live, h)
		}
	}
	sortHits(live)
	return live
}

// linkUpdate records that r updates old, an opinion in a namespace the
// caller may only read.
func (b *batch) linkUpdate(r, old *Record) error {
	id, err := newID()
	if err != nil {
		return err
	}
	b.putRelation(&Relation{ID: idString(id), Subject: r.ID, Predicate: PredicateUpdates, Object: old.ID, Src: r.ID,
		Namespace: r.Namespace, Caller: b.v.caller, Created: b.v.now()})
	return nil
}

// updatedBy maps each live opinion that a readable, live, newer opinion
// updates ([PredicateUpdates]) to that newer one (the newest, when
// several). The caller holds v.mu.
func (v *Vault) updatedBy() map[string]*Record {
	out := map[string]*Record{}
	for _, rel := range v.st.relations {
		if rel.Predicate != PredicateUpdates || rel.Src != rel.Subject || !v.canRead(rel.Namespace) {
			continue
		}
		newer, old := v.liveSuccessor(v.st.records[rel.Subject]), v.st.records[rel.Object]
		if newer == nil || old == nil || !old.Live() || !v.canRead(newer.Namespace) ||
			compareNewest(newer, old) < 0 {
			// Re-affirmed since: the older one is current again.
			continue
		}
		if cur, ok := out[old.ID]; !ok || compareNewest(newer, cur) > 0 {
			out[old.ID] = newer
		}
	}
	return out
}

// liveSuccessor is r when it is live, else the live record that replaced
// it (following superseded_by: Helix, which updates main's Zed, later
// replaced by Vim, leaves Vim updating Zed), or nil.
func (v *Vault) liveSuccessor(r *Record) *Record {
	for range 16 {
		if r == nil || r.Live() {
			return r
		}
		r = v.st.records[r.SupersededBy]
	}
	return nil
}

// currentOpinionsFirst marks each hit that a newer opinion updates with
// that opinion's id, and ranks the newer one just above it: moved up when
// it is among the hits, brought in (if the search's filter lets it) when
// it is not. The caller holds v.mu.
func (v *Vault) currentOpinionsFirst(hits []SearchHit, keep func(*Record) bool) []SearchHit {
	if len(v.st.relations) == 0 || !slices.ContainsFunc(hits, func(h SearchHit) bool { return h.Kind == KindOpinion }) {
		return hits
	}
	updated := v.updatedBy()
	if len(updated) == 0 {
		return hits
	}
	for i := 0; i < len(hits); i++ {
		newer := updated[hits[i].ID]
		for seen := 0; newer != nil && seen < 8; seen++ {
			// Follow the chain to the newest: Zed ← Helix ← Vim.
			if next := updated[newer.ID]; next != nil {
				newer = next
				continue
			}
			break
		}
		if newer == nil {
			continue
		}
		hits[i].UpdatedBy = newer.ID
		at := -1
		for j := range hits {
			if hits[j].ID == newer.ID {
				at = j
				break
			}
		}
		switch {
		case at > i:
			moved := hits[at]
			moved.Score = max(moved.Score, hits[i].Score)
			if hits[i].Confidence > moved.Confidence {
				moved.Confidence, moved.Match = hits[i].Confidence, hits[i].Match
			}
			copy(hits[i+1:at+1], hits[i:at])
			hits[i] = moved
			i++ // the older one is now at i+1
		case at < 0 && keep(newer):
			h := hitOf(newer, hits[i].Score)
			h.Confidence, h.Match = hits[i].Confidence, hits[i].Match
			hits = append(hits[:i], append([]SearchHit{h}, hits[i:]...)...)
			i++
		}
	}
	return hits
}
