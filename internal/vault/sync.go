package vault

import (
	"fmt"
	"strings"

	"github.com/compartment/compartment/vaultfmt"
)

// This file is the vault's narrow seam for internal/devsync (FORMAT.md
// section 10): an observer told of this vault's own writes before they
// reach the file, and one entry point through which a merge writes.

// SyncObserver is told of every write this handle makes, except a merge's
// own (MergeSync), before it is appended: under the vault's exclusive
// writer lock, after the write's changes are decided. An error aborts the
// write, so nothing is acknowledged that the observer did not take.
type SyncObserver interface {
	Committing(changes []SyncChange) error
}

// SyncChange is one item a write puts or deletes.
type SyncChange struct {
	ID string
	// Record is the record as the write leaves it (nil for a delete or a
	// relation); Before is the record as it was (nil when new).
	Record, Before *Record
	// Relation is a relation the write puts.
	Relation *Relation
	// Deleted: the item (record or relation) is removed; Shred: and its
	// content destroyed.
	Deleted, Shred bool
	// WasRelation tells a deleted relation from a deleted record.
	WasRelation bool
}

// SetSyncObserver installs (or, with nil, removes) the observer.
func (v *Vault) SetSyncObserver(o SyncObserver) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.sync = o
}

// tellSync hands a write's changes to the observer; the caller holds v.mu
// and the writer lock.
func (v *Vault) tellSync(changes []vaultfmt.Change) error {
	if v.sync == nil || v.merging {
		return nil
	}
	shredded := map[string]bool{}
	for _, c := range changes {
		if c.Op == vaultfmt.OpPut && c.Item.Kind == kindAudit {
			if e, err := decodeAudit(c.Item.Body); err == nil && e.Op == "shred" {
				shredded[e.Target] = true
			}
		}
	}
	var out []SyncChange
	for _, c := range changes {
		id := idString(c.Item.ID)
		switch {
		case c.Op == vaultfmt.OpDelete:
			_, rel := v.st.relations[id]
			if _, rec := v.st.records.lookup(id); !rec && !rel {
				continue // an audit entry or an unknown item
			}
			out = append(out, SyncChange{ID: id, Deleted: true, Shred: shredded[id], WasRelation: rel,
				Before: v.st.records.get(id)})
			if shredded[id] && v.st.records.get(id) != nil {
				out = append(out, v.foldedTwins(v.st.records.get(id))...)
			}
		case c.Item.Kind == kindRecord:
			r, err := decodeRecord(id, c.Item.Body)
			if err != nil {
				return err
			}
			out = append(out, SyncChange{ID: id, Record: r, Before: v.st.records.get(id)})
		case c.Item.Kind == kindRelation:
			rel, err := decodeRelation(id, c.Item.Body)
			if err != nil {
				return err
			}
			out = append(out, SyncChange{ID: id, Relation: rel})
		}
	}
	if len(out) == 0 {
		return nil
	}
	if err := v.sync.Committing(out); err != nil {
		return fmt.Errorf("sync log: %w", err)
	}
	return nil
}

// foldedTwins are the other copies of r's claim that a merge folded
// together with it (the same claim stored on another device): the one
// they were folded into, when r is itself a folded copy, and every copy
// superseded by that one. A shred of any copy shreds them all, on every
// device, whichever copy the fold kept. The caller holds v.mu.
func (v *Vault) foldedTwins(r *Record) []SyncChange {
	key := ClaimKey(r)
	root := r
	if w := v.st.records.get(r.SupersededBy); r.SupersededBy != "" && w != nil && ClaimKey(w) == key {
		root = w
	}
	var out []SyncChange
	if root != r {
		out = append(out, SyncChange{ID: root.ID, Deleted: true, Shred: true, Before: root})
	}
	for id, twin := range v.st.records.all() {
		if id != r.ID && twin.SupersededBy == root.ID && ClaimKey(twin) == key {
			out = append(out, SyncChange{ID: id, Deleted: true, Shred: true, Before: twin})
		}
	}
	return out
}

// SyncPlan is what a merge writes: whole records and relations to put (new
// or changed), ids to delete, and ids among those whose content must be
// destroyed (shred).
type SyncPlan struct {
	Records   []*Record
	Relations []*Relation
	Delete    []string
	Shred     []string
}

// Empty reports whether the plan writes nothing.
func (p SyncPlan) Empty() bool {
	return len(p.Records) == 0 && len(p.Relations) == 0 && len(p.Delete) == 0
}

// SyncContents is the vault as a merge sees it, under the writer lock:
// read it, never change it.
type SyncContents struct {
	Records   map[string]*Record
	Relations map[string]*Relation
	VaultID   [16]byte
	MasterKey []byte
}

// MergeSync runs plan under the vault's exclusive writer lock, after
// catching up with other processes, and writes what it returns in one
// batch (one fsync): a kill -9 leaves the vault as before or after it.
// The observer is not told of these writes. A record's seq is this vault's
// (kept for a record it has, the next one for a new record); vectors from
// another model than the vault's pin are made again here.
func (v *Vault) MergeSync(plan func(SyncContents) (SyncPlan, error)) (SyncPlan, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return SyncPlan{}, err
	}
	v.merging = true
	defer func() { v.merging = false }()
	var done SyncPlan
	var shred []vaultfmt.ID
	err := v.update(func() ([]vaultfmt.Change, error) {
		p, err := plan(SyncContents{Records: v.st.records.all(), Relations: v.st.relations,
			VaultID: v.file.Header().VaultID, MasterKey: v.file.MasterKey()})
		if err != nil || p.Empty() {
			done = p
			return nil, err
		}
		if err := v.embedForeign(p.Records); err != nil {
			return nil, err
		}
		b := v.newBatch()
		for _, r := range p.Records {
			if old, ok := v.st.records.lookup(r.ID); ok {
				r.Seq = old.Seq
			} else {
				b.seq++
				r.Seq = b.seq
			}
			id, _ := parseID(r.ID)
			b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRecord, Body: encodeRecord(r)}})
			b.logAudit("sync", r.ID)
		}
		for _, rel := range p.Relations {
			id, _ := parseID(rel.ID)
			b.changes = append(b.changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRelation, Body: encodeRelation(rel)}})
			b.logAudit("sync", rel.ID)
		}
		shred = shred[:0]
		for _, id := range p.Delete {
			b.deleteItem(id, "sync")
		}
		for _, id := range p.Shred {
			raw, _ := parseID(id)
			shred = append(shred, raw)
		}
		done = p
		return b.changes, nil
	})
	if err != nil {
		return SyncPlan{}, err
	}
	if len(shred) > 0 {
		if err := v.file.Shred(shred); err != nil {
			return done, fmt.Errorf("sync: shred %d memories: %w (they are forgotten; run `compartment compact` to finish destroying them)", len(shred), err)
		}
	}
	return done, nil
}

// embedForeign gives records whose vectors are missing or come from
// another model this vault's vectors. The caller holds v.mu.
func (v *Vault) embedForeign(recs []*Record) error {
	model := v.file.Header().Pin.SHA256
	if v.enc != nil {
		model = v.enc.Info().SHA256
	}
	var need []*Record
	for _, r := range recs {
		if r.Vectors == nil || r.Vectors.Len() == 0 || [8]byte(model[:8]) != r.Vectors.Model {
			r.Vectors = nil
			need = append(need, r)
		}
	}
	if len(need) == 0 || v.enc == nil {
		return nil // without a model here, `reindex` embeds them later
	}
	return v.embedRecords(need)
}

// SyncRecordBody is a record's body (FORMAT.md 3.2) as it travels between
// devices: with its vectors when withVectors, and never its seq (each vault
// numbers its own writes).
func SyncRecordBody(r *Record, withVectors bool) []byte {
	c := *r
	c.Seq = 0
	if !withVectors {
		c.Vectors = nil
	}
	return encodeRecord(&c)
}

// DecodeSyncRecord reads a body written by [SyncRecordBody].
func DecodeSyncRecord(id [16]byte, body []byte) (*Record, error) {
	return decodeRecord(idString(id), body)
}

// SyncRelationBody is a relation's body (FORMAT.md 3.3).
func SyncRelationBody(rel *Relation) []byte { return encodeRelation(rel) }

// DecodeSyncRelation reads a body written by [SyncRelationBody].
func DecodeSyncRelation(id [16]byte, body []byte) (*Relation, error) {
	return decodeRelation(idString(id), body)
}

// ClaimKey is what two records must share to be the same memory stored
// twice: namespace, kind and the claim folded as the store path folds it
// for an exact duplicate (case, spacing, punctuation at word edges), so a
// number, a name or a negation always differs.
func ClaimKey(r *Record) string {
	kind := r.Kind
	if kind == "" {
		kind = KindFact
	}
	return r.Namespace + "\x00" + kind + "\x00" + normalizeClaim(r.Text)
}

// Syncable reports whether a record travels to other devices: packs and
// reference facts are per device.
func Syncable(r *Record) bool {
	return !r.Reference && !strings.HasPrefix(r.Namespace, "packs/") && r.Namespace != "packs"
}

// ParseID reads a whole 32-digit id.
func ParseID(s string) ([16]byte, bool) { return parseID(s) }

// IDString prints an id as 32 lower-case hex digits.
func IDString(id [16]byte) string { return idString(id) }
