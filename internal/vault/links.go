package vault

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// LinkRequest is one relation to record.
type LinkRequest struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	Src       string `json:"src,omitempty"`        // id of the memory it comes from
	From      string `json:"valid_from,omitempty"` // YYYY-MM-DD
	To        string `json:"valid_to,omitempty"`   // YYYY-MM-DD
	Namespace string `json:"namespace,omitempty"`
}

// Link records subject –predicate→ object and returns the relation.
func (v *Vault) Link(req LinkRequest) (*Relation, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	rel, err := v.newRelation(req)
	if err != nil {
		return nil, err
	}
	// The same relation twice is one relation: the existing one is
	// returned and nothing is written.
	if same := v.sameRelation(rel); same != nil {
		cp := *same
		return &cp, nil
	}
	err = v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		b.putRelation(rel)
		return b.changes, nil
	})
	if err != nil {
		return nil, err
	}
	cp := *rel
	return &cp, nil
}

// sameRelation finds a live relation saying what rel says: the same
// subject, predicate and object (ignoring case), validity window, source
// memory and namespace.
func (v *Vault) sameRelation(rel *Relation) *Relation {
	for _, r := range v.st.relations {
		if r.Namespace == rel.Namespace && r.From == rel.From && r.To == rel.To && r.Src == rel.Src &&
			strings.EqualFold(r.Subject, rel.Subject) && strings.EqualFold(r.Predicate, rel.Predicate) &&
			strings.EqualFold(r.Object, rel.Object) {
			return r
		}
	}
	return nil
}

func (v *Vault) newRelation(req LinkRequest) (*Relation, error) {
	rel := &Relation{
		Subject: strings.TrimSpace(req.Subject), Predicate: strings.TrimSpace(req.Predicate),
		Object: strings.TrimSpace(req.Object), Src: strings.TrimSpace(req.Src),
		From: req.From, To: req.To, Namespace: req.Namespace, Caller: v.caller, Created: v.now(),
	}
	if rel.Subject == "" || rel.Predicate == "" || rel.Object == "" {
		return nil, invalidf("a relation needs a subject, a predicate and an object, e.g. \"Max\" \"works_at\" \"Northwind\"")
	}
	for _, f := range []struct{ name, val string }{{"subject", rel.Subject}, {"predicate", rel.Predicate}, {"object", rel.Object}} {
		if len(f.val) > 200 {
			return nil, invalidf("%s is %d bytes: keep each part of a relation under 200", f.name, len(f.val))
		}
	}
	for _, d := range []struct{ name, val string }{{"valid_from", rel.From}, {"valid_to", rel.To}} {
		if d.val == "" {
			continue
		}
		if _, err := time.Parse(DateLayout, d.val); err != nil {
			return nil, invalidf("%s %q: use a date like 2026-08-01", d.name, d.val)
		}
	}
	if rel.From != "" && rel.To != "" && rel.To < rel.From {
		return nil, invalidf("valid_to %s is before valid_from %s", rel.To, rel.From)
	}
	if rel.Src != "" {
		r, err := v.lookup(rel.Src)
		if err != nil {
			return nil, fmt.Errorf("src: %w", err)
		}
		rel.Src = r.ID
		if rel.Namespace == "" {
			rel.Namespace = r.Namespace
		}
	}
	if rel.Namespace == "" {
		rel.Namespace = v.cfg.DefaultNamespace(v.caller)
	}
	if err := checkNamespace(rel.Namespace); err != nil {
		return nil, err
	}
	if err := v.checkNamespaceCase(rel.Namespace, nil); err != nil {
		return nil, err
	}
	if err := v.checkWrite(rel.Namespace); err != nil {
		return nil, err
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	rel.ID = idString(id)
	return rel, nil
}

// RelationQuery filters [Vault.Relations]; empty fields match everything.
type RelationQuery struct {
	Entity    string // subject or object, case-insensitive
	Subject   string
	Predicate string
	Object    string
	AsOf      string // YYYY-MM-DD: keep relations valid on that day
	Namespace string
	Limit     int // default 500
}

// RelationResult is what [Vault.Relations] found.
type RelationResult struct {
	Relations []*Relation `json:"relations"`
	Truncated bool        `json:"truncated"` // the limit cut the list: narrow the query or raise the limit
}

// Relations answers a graph query.
func (v *Vault) Relations(q RelationQuery) (RelationResult, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return RelationResult{}, err
	}
	if q.AsOf != "" {
		if _, err := time.Parse(DateLayout, q.AsOf); err != nil {
			return RelationResult{}, invalidf("as_of %q: use a date like 2026-08-01", q.AsOf)
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 500
	}
	eq := strings.EqualFold
	var out []*Relation
	for _, rel := range v.relationsSorted() {
		switch {
		case !v.canRead(rel.Namespace),
			q.Entity != "" && !eq(rel.Subject, q.Entity) && !eq(rel.Object, q.Entity),
			q.Subject != "" && !eq(rel.Subject, q.Subject),
			q.Predicate != "" && !eq(rel.Predicate, q.Predicate),
			q.Object != "" && !eq(rel.Object, q.Object),
			q.Namespace != "" && rel.Namespace != q.Namespace,
			q.AsOf != "" && ((rel.From != "" && q.AsOf < rel.From) || (rel.To != "" && q.AsOf > rel.To)):
			continue
		}
		if len(out) == limit {
			return RelationResult{Relations: copyRelations(out), Truncated: true}, nil
		}
		out = append(out, rel)
	}
	return RelationResult{Relations: copyRelations(out)}, nil
}

func copyRelations(rs []*Relation) []*Relation {
	out := make([]*Relation, len(rs))
	for i, r := range rs {
		cp := *r
		out[i] = &cp
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Unlink removes a relation.
func (v *Vault) Unlink(id string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return err
	}
	id, err := resolveID(id, v.st.relations, func(r *Relation) bool { return v.canRead(r.Namespace) })
	if err != nil {
		return fmt.Errorf("relation %w", err)
	}
	rel := v.st.relations[id]
	if err := v.checkWrite(rel.Namespace); err != nil {
		return err
	}
	return v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		b.deleteItem(id, "unlink")
		return b.changes, nil
	})
}
