package vault

import (
	"cmp"
	"slices"

	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/lexicon"
	"github.com/compartment/compartment/internal/search"
)

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
	home := func(rec facet) bool {
		return rec.Namespace == mainNS || rec.Namespace == v.cfg.DefaultNamespace(rec.Caller)
	}
	rf := facetOf(r)
	across := home(rf)
	keepFacet := func(rec facet) bool {
		if rec.Kind != KindOpinion || rec.Reference {
			return false
		}
		return rec.Namespace == r.Namespace || across && home(rec) && !isPack(rec.Namespace) && v.canRead(rec.Namespace)
	}
	keep := func(rec *Record) bool {
		if rec == nil {
			return false
		}
		f := facetOf(rec)
		return keepFacet(f)
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
		filter := func(doc uint32) bool {
			f, ok := ix.facet(doc)
			return ok && keepFacet(f)
		}
		near, err := ix.engine.Nearest(vec, 8, filter)
		seen := map[uint32]bool{}
		if err == nil {
			for _, n := range near {
				hits = append(hits, similarHit{ix.rec(n.Doc), n.Cos})
				seen[n.Doc] = true
			}
		}
		// And the literal channel's best: a restatement in words the
		// model knows little can sit far from r by cosine and still agree
		// word for word ([DecideOpinion] re-affirms it whatever the
		// cosine). Each comes with its true cosine, or -1 when its vectors
		// are not at hand, so it can never conflict on a guessed one.
		lit, err := ix.engine.Search(search.Query{Text: r.Text, TopK: 8, Filter: filter, Now: v.now()})
		if err == nil {
			for _, l := range lit {
				if seen[l.Doc] {
					continue
				}
				rec, cos := ix.rec(l.Doc), -1.0
				if rec.Vectors != nil {
					cos = bestCos(rec.Vectors.Float32(), vec)
				}
				hits = append(hits, similarHit{rec, cos})
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
	if len(v.st.relations) == 0 {
		return nil
	}
	out := map[string]*Record{}
	for _, rel := range v.st.relations {
		if rel.Predicate != PredicateUpdates || rel.Src != rel.Subject || !v.canRead(rel.Namespace) {
			continue
		}
		newer, old := v.liveSuccessor(v.st.records.get(rel.Subject)), v.st.records.get(rel.Object)
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
		r = v.st.records.get(r.SupersededBy)
	}
	return nil
}

// currentOpinionsFirst gives each holder's aspect one current opinion in
// the answer. updated is [Vault.updatedBy]'s map, which it may extend. It
// marks each hit that a newer opinion updates with that
// opinion's id, and ranks the newer one just above it: moved up when it is
// among the hits, brought in (if the search's filter lets it) when it is
// not. With history, the superseded opinions among the hits
// ([Vault.replacedOpinions]) are marked and ranked the same way. Unless
// the search reads the vault as of a past time (dated) or asks for
// history, the marked ones whose newer opinion is in the answer are left
// out of it, and the current one lists them in Replaces. The caller holds
// v.mu.
func (v *Vault) currentOpinionsFirst(hits []SearchHit, keep func(*Record) bool, updated map[string]*Record, dated, history bool) []SearchHit {
	if !slices.ContainsFunc(hits, func(h SearchHit) bool { return h.Kind == KindOpinion }) {
		return hits
	}
	if history && !dated {
		if updated == nil {
			updated = map[string]*Record{}
		}
		for _, h := range hits {
			if r := v.st.records.get(h.ID); r != nil && !r.Live() && r.Kind == KindOpinion {
				if next := v.liveSuccessor(r); next != nil && v.canRead(next.Namespace) {
					updated[r.ID] = next
				}
			}
		}
	}
	hits = v.newerChoicesFirst(v.linkedOpinionsFirst(hits, keep, updated))
	if dated {
		return hits
	}
	v.markReplaces(hits, updated)
	if history {
		return hits
	}
	in := map[string]bool{}
	for _, h := range hits {
		in[h.ID] = true
	}
	return slices.DeleteFunc(hits, func(h SearchHit) bool { return h.UpdatedBy != "" && in[h.UpdatedBy] })
}

// markReplaces sets Replaces on each live opinion hit: the readable
// opinions it superseded and those it updates (through a chain of
// updates, to the newest), oldest first.
func (v *Vault) markReplaces(hits []SearchHit, updated map[string]*Record) {
	by := map[string][]*Record{}
	for old := range updated {
		if r := v.st.records.get(old); r != nil {
			n := newestUpdate(updated, old)
			by[n.ID] = append(by[n.ID], r)
		}
	}
	for i := range hits {
		if hits[i].Kind != KindOpinion {
			continue
		}
		r := v.st.records.peek(hits[i].ID)
		if r == nil || !r.Live() || r.Kind != KindOpinion {
			continue
		}
		olds := slices.Clone(by[r.ID])
		for _, id := range r.Supersedes {
			if o := v.st.records.get(id); o != nil && o.Kind == KindOpinion && v.canRead(o.Namespace) &&
				!slices.Contains(olds, o) {
				olds = append(olds, o)
			}
		}
		if len(olds) == 0 {
			continue
		}
		slices.SortFunc(olds, func(a, b *Record) int { return compareNewest(a, b) })
		hits[i].Replaces = make([]string, len(olds))
		for j, o := range olds {
			hits[i].Replaces[j] = o.ID
		}
	}
}

// newestUpdate follows a chain of updates from id to the newest opinion
// (Zed ← Helix ← Vim), or nil when nothing updates id.
func newestUpdate(updated map[string]*Record, id string) *Record {
	newer := updated[id]
	for seen := 0; newer != nil && seen < 8; seen++ {
		next := updated[newer.ID]
		if next == nil {
			break
		}
		newer = next
	}
	return newer
}

// replacedOpinions are the superseded opinions the filter keeps whose live
// successor the caller can read: the history a search with History
// brings back. Records split by atomize are not among them. The caller
// holds v.mu.
func (v *Vault) replacedOpinions(keep func(*Record) bool) []*Record {
	var out []*Record
	for _, r := range v.st.records.replaced() { // not all: a search leaves the live rows rows
		if r.Live() || r.Kind != KindOpinion || len(r.SplitInto) > 0 || !keep(r) {
			continue
		}
		if next := v.liveSuccessor(r); next != nil && v.canRead(next.Namespace) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y *Record) int { return cmp.Compare(x.Seq, y.Seq) })
	return out
}

// linkedOpinionsFirst is the [PredicateUpdates] half of
// [Vault.currentOpinionsFirst].
func (v *Vault) linkedOpinionsFirst(hits []SearchHit, keep func(*Record) bool, updated map[string]*Record) []SearchHit {
	if len(updated) == 0 {
		return hits
	}
	for i := 0; i < len(hits); i++ {
		// Follow the chain to the newest: Zed ← Helix ← Vim.
		newer := newestUpdate(updated, hits[i].ID)
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

// Bare choices. "Priya prefers Zed." and "Priya prefers Helix." name no
// aspect, and the bundled model cannot tell two editors from an editor
// and a database (sentence cosines Helix–Zed 0.64, Helix–Postgres 0.82),
// so the store keeps both, neither superseded nor linked
// ([DecideOpinion]). Search does the one safe thing left: when both come
// back for one query, the newer ranks first and the older is marked
// maybe_updated_by with its id, a hint for the reader ("this may not be
// current: check with the user"), never a change to either record.
//
// Two opinions are rival choices ([rivalChoices]) when they have one
// holder, each states a preference (prefer, favour, would rather: a
// choice of one thing, not a liking, which may hold for many), neither
// holds a negation or a comparison, each object names one thing (one
// word written with a capital or a digit, [fixedWords]: "Zed for Go"
// names two, and is a choice in a context), the names differ, and the
// rest of the objects agree word for word ("Zed as her editor"
// and "Helix as her editor"; "Zed" and "Helix"). "Priya prefers tea."
// names nothing and is never a rival of either.

// newerChoicesFirst marks each opinion hit that a newer rival choice
// among the hits may update ([rivalChoices]) with the newest such
// rival's id (MaybeUpdatedBy) and ranks that rival just above it. Hits
// already marked updated_by, and the opinions that update them, are left
// as [Vault.linkedOpinionsFirst] put them. The caller holds v.mu.
func (v *Vault) newerChoicesFirst(hits []SearchHit) []SearchHit {
	type choice struct {
		rec   *Record
		parts opinionParts
		ok    bool
	}
	choices := map[string]choice{}
	linked := map[string]bool{}
	for _, h := range hits {
		if h.UpdatedBy != "" {
			linked[h.ID], linked[h.UpdatedBy] = true, true
		}
	}
	for _, h := range hits {
		if h.Kind != KindOpinion || linked[h.ID] {
			continue
		}
		r := v.st.records.peek(h.ID)
		if r == nil {
			continue
		}
		p, ok := choiceParts(r.Text)
		if ok {
			choices[h.ID] = choice{r, p, true}
		}
	}
	if len(choices) < 2 {
		return hits
	}
	for i := 0; i < len(hits); i++ {
		c, ok := choices[hits[i].ID]
		if !ok {
			continue
		}
		var newest *Record
		for id, o := range choices {
			if id != c.rec.ID && compareNewest(o.rec, c.rec) > 0 && rivalChoices(c.parts, o.parts) &&
				(newest == nil || compareNewest(o.rec, newest) > 0) {
				newest = o.rec
			}
		}
		if newest == nil {
			continue
		}
		hits[i].MaybeUpdatedBy = newest.ID
		at := slices.IndexFunc(hits, func(h SearchHit) bool { return h.ID == newest.ID })
		if at > i {
			moved := hits[at]
			moved.Score = max(moved.Score, hits[i].Score)
			copy(hits[i+1:at+1], hits[i:at])
			hits[i] = moved
			i++ // the older one is now at i+1
		}
	}
	return hits
}

// choiceParts parses an opinion that states a preference with no
// negation or comparison and names one thing, or nothing ([rivalChoices]).
func choiceParts(text string) (opinionParts, bool) {
	words := opinionWords(text)
	at := holderEnd(words)
	if at < 0 || !choiceVerb(words[at:]) {
		return opinionParts{}, false
	}
	p := parseOpinion(text)
	if slices.Contains(p.object, "not") || slices.Contains(p.object, "over") || slices.Contains(p.object, "too") {
		return opinionParts{}, false
	}
	names, content := 0, 0
	for _, w := range aspectWords(p) {
		content++
		if w.fixed {
			names++
		}
	}
	return p, names == 1 || names == 0 && content > 0
}

// choiceVerb reports whether a stance starts with a verb of choosing one
// thing: prefer, favour/favor, or would rather.
func choiceVerb(stance []string) bool {
	if len(stance) == 0 {
		return false
	}
	w := stance[0]
	if fts.SameWord(w, "prefer") || fts.SameWord(w, "favour") || fts.SameWord(w, "favor") {
		return true
	}
	return w == "would" && len(stance) > 1 && stance[1] == "rather"
}

// rivalChoices reports whether two preference opinions ([choiceParts])
// may be one holder's choice between two named things: one holder, the
// names differ, and every other content word the same in the same order;
// or, for objects that name nothing, between two common things of one
// kind ([rivalKinds]).
func rivalChoices(a, b opinionParts) bool {
	if !sameHolder(a, b) {
		return false
	}
	if named(a) != named(b) {
		return false
	}
	if !named(a) {
		return rivalKinds(a, b)
	}
	var ca, cb []string
	for _, w := range aspectWords(a) {
		if !w.fixed {
			ca = append(ca, w.word)
		}
	}
	for _, x := range aspectWords(b) {
		if !x.fixed {
			cb = append(cb, x.word)
			continue
		}
		for _, y := range aspectWords(a) {
			if y.fixed && fts.SameWord(x.word, y.word) {
				return false
			}
		}
	}
	return slices.EqualFunc(ca, cb, fts.SameWord)
}

// named reports whether an opinion's object names something.
func named(p opinionParts) bool {
	return slices.ContainsFunc(aspectWords(p), func(w aspectWord) bool { return w.fixed })
}

// rivalKinds reports whether two preferences that name nothing differ in
// one content word only, and WordNet files the two words as different
// things of one kind in their most frequent sense ([lexicon.Kind]: "Priya
// prefers tea." and "Priya prefers coffee.", two beverages). That is what
// a bare choice needs to be read as a choice between alternatives; it is
// still only a hint (maybe_updated_by), since liking one need not end
// the other.
func rivalKinds(a, b opinionParts) bool {
	var ca, cb []string
	for _, w := range aspectWords(a) {
		ca = append(ca, w.word)
	}
	for _, w := range aspectWords(b) {
		cb = append(cb, w.word)
	}
	if len(ca) != len(cb) {
		return false
	}
	differ := 0
	for i := range ca {
		if fts.SameWord(ca[i], cb[i]) {
			continue
		}
		if _, ok := lexicon.Kind(ca[i], cb[i]); !ok {
			return false
		}
		differ++
	}
	return differ == 1
}
