package vault

import (
	"github.com/compartment/compartment/vaultfmt"
)

// batch collects the changes of one write (records, their audit entries)
// so they reach the file in one append and one fsync.
type batch struct {
	v       *Vault
	changes []vaultfmt.Change
	seq     uint64
	audit   auditChain // the chain as it will be after this batch
	placed  []*Record  // records stored by this batch so far
	updated map[string]*Record
}

func (v *Vault) newBatch() *batch {
	b := &batch{v: v, seq: v.st.maxSeq, updated: map[string]*Record{}}
	b.audit = v.st.audit.forkHead()
	return b
}

// putRecord writes r (new or updated) and chains an audit entry.
func (b *batch) putRecord(r *Record, op string) {
	id, _ := parseID(r.ID)
	b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRecord, Body: encodeRecord(r)}})
	b.updated[r.ID] = r
	b.logAudit(op, r.ID)
}

// deleteItem tombstones an item and chains an audit entry.
func (b *batch) deleteItem(id string, op string) {
	raw, _ := parseID(id)
	b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpDelete, Item: vaultfmt.Item{ID: raw}})
	b.logAudit(op, id)
}

// putRelation writes a relation and chains an audit entry.
func (b *batch) putRelation(rel *Relation) {
	id, _ := parseID(rel.ID)
	b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRelation, Body: encodeRelation(rel)}})
	b.logAudit("link", rel.ID)
}

func (b *batch) logAudit(op, target string) {
	e := b.audit.next(b.v.now(), b.v.caller, op, target)
	b.appendAudit(e)
}

func (b *batch) appendAudit(e *AuditEntry) {
	b.audit.append(e)
	b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: auditID(e.Seq), Kind: kindAudit, Body: encodeAudit(e)}})
}

// current returns the record as this batch will leave it.
func (b *batch) current(id string) *Record {
	if r, ok := b.updated[id]; ok {
		return r
	}
	return b.v.st.records.get(id)
}

// place decides what a prepared record becomes: a duplicate of an existing
// memory, a reaffirmation or conflict of an opinion, or a new record
// (superseding others when asked).
func (v *Vault) place(b *batch, req *StoreRequest, r *Record) StoreResult {
	if req.ID != "" {
		if _, exists := v.st.records.lookup(req.ID); exists {
			return StoreResult{ID: req.ID, Message: "already in the vault"}
		}
	}
	var updates []*Record // restated opinions the caller may only read
	if req.Supersedes == nil {
		if r.Kind == KindOpinion {
			res, ok := v.opinionCheck(b, r, v.opinionsSimilarTo(b, r))
			if ok {
				return res
			}
			updates = res.updates
		} else if dup := v.duplicateOf(r, v.similarTo(b, r)); dup != nil {
			return StoreResult{ID: dup.ID, Duplicate: true, Text: dup.Stamped(), Discovered: dup.Discovered,
				Message: "a near-identical memory exists; its id is returned and nothing new was stored"}
		}
	}
	if r.ID == "" {
		id, err := newID()
		if err != nil {
			return StoreResult{Message: err.Error()}
		}
		r.ID = idString(id)
	}
	b.seq++
	r.Seq = b.seq
	var superseded, linked []string
	for _, oldID := range req.Supersedes {
		old := b.current(oldID)
		if old == nil {
			continue
		}
		if v.checkWrite(old.Namespace) != nil {
			updates = append(updates, old) // prepare allowed it: an opinion the caller may read
			continue
		}
		next := *old
		next.SupersededBy = r.ID
		b.putRecord(&next, "supersede")
		superseded = append(superseded, old.ID)
	}
	r.Supersedes = superseded
	b.putRecord(r, "store")
	b.placed = append(b.placed, r)
	for _, old := range updates {
		if err := b.linkUpdate(r, old); err != nil {
			return StoreResult{Message: err.Error()}
		}
		linked = append(linked, old.ID)
	}
	res := StoreResult{ID: r.ID, Stored: true, Superseded: superseded, Linked: linked, Text: r.Stamped(), Discovered: r.Discovered, Expires: r.Expires}
	if len(linked) > 0 {
		res.Message = "the older opinion is in a namespace you may only read: it was linked as updated by this one, and search ranks this one first"
	}
	return res
}

// opinionCheck implements "opinions update": a restatement refreshes the
// live opinion's date; a changed one (the same holder and aspect) comes
// back as a conflict. A restatement of an opinion the caller may only
// read cannot be refreshed: it is returned, not found, in updates, for
// the new record to link ([Vault.opinionsSimilarTo]).
func (v *Vault) opinionCheck(b *batch, r *Record, similar []similarHit) (StoreResult, bool) {
	var conflicts, readOnly []*Record
	for _, h := range similar {
		if h.rec.Kind != KindOpinion {
			continue
		}
		switch v.decideOpinion(h, r) {
		case OpinionSame:
			if v.checkWrite(h.rec.Namespace) != nil {
				readOnly = append(readOnly, h.rec)
				continue
			}
			next := *b.current(h.rec.ID)
			next.Affirmed = v.now()
			b.putRecord(&next, "reaffirm")
			return StoreResult{ID: next.ID, Reaffirmed: true, Text: next.Stamped(), Discovered: next.Discovered,
				Message: "this restates a live opinion: its date was refreshed instead of storing a copy"}, true
		case OpinionConflict:
			conflicts = append(conflicts, h.rec)
		}
	}
	if len(conflicts) == 0 {
		return StoreResult{updates: readOnly}, false
	}
	msg := "live opinion(s) of the same holder on the same aspect exist: resend with supersedes=[their ids] to replace them (merge the text to keep parts of both), or supersedes=[] to keep both"
	for _, c := range conflicts {
		if c.Namespace != r.Namespace {
			msg += "; some are in other namespaces (see each one's namespace): superseding one you may only read links it as updated by yours instead"
			break
		}
	}
	return StoreResult{Conflicts: conflicts, Message: msg}, true
}

// similarTo finds live records in r's namespace similar to r, best first:
// by cosine when the vault has vectors, by identical text otherwise.
func (v *Vault) similarTo(b *batch, r *Record) []similarHit {
	if r.Vectors == nil {
		var out []similarHit
		for _, rec := range v.st.index.sameText(r.Text, r.Namespace) {
			out = append(out, similarHit{rec, 1})
		}
		for _, rec := range b.placed {
			if rec.Namespace == r.Namespace && normalizeClaim(rec.Text) == normalizeClaim(r.Text) {
				out = append(out, similarHit{rec, 1})
			}
		}
		return out
	}
	vec := r.Vectors.Float32()[0]
	hits := v.st.index.similar(vec, r.Namespace, 5)
	for _, rec := range b.placed {
		if rec.Namespace == r.Namespace && rec.Vectors != nil {
			hits = append(hits, similarHit{rec, bestCos(rec.Vectors.Float32(), vec)})
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
