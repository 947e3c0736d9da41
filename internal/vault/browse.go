package vault

import (
	"sort"
	"strings"
)

// Records returns every record the caller may read, superseded ones
// included, oldest first (by write order). The copies carry no vectors:
// this is the view for browsing and counting (the dashboard), not for
// search.
func (v *Vault) Records() ([]*Record, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	readable := map[string]bool{}
	out := make([]*Record, 0, v.st.records.len())
	for _, r := range v.st.records.all() {
		ok, seen := readable[r.Namespace]
		if !seen {
			ok = v.canRead(r.Namespace)
			readable[r.Namespace] = ok
		}
		if !ok {
			continue
		}
		cp := *r
		cp.Vectors = nil
		out = append(out, &cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// AuditLog returns audit entries, newest first, at most limit of them
// (0: all). With a target (a record or relation id), only the entries about
// it, and only when the caller may read it. Without one, every entry
// except those about an item that exists in a namespace the caller may not
// read; entries about items since removed carry nothing but an id, and are
// kept.
func (v *Vault) AuditLog(target string, limit int) ([]AuditEntry, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	if target != "" {
		id, err := v.readableItem(target)
		if err != nil {
			return nil, err
		}
		target = id
	}
	var out []AuditEntry
	v.st.audit.each(func(_ uint64, e *AuditEntry) {
		switch {
		case target != "" && e.Target != target,
			target == "" && !v.auditVisible(e.Target):
			return
		}
		out = append(out, *e)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// readableItem resolves a record (by id or unique prefix) or a relation
// (by full id) the caller may read; the caller holds v.mu.
func (v *Vault) readableItem(id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if rel, ok := v.st.relations[id]; ok && v.canRead(rel.Namespace) {
		return id, nil
	}
	r, err := v.lookup(id)
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// auditVisible reports whether an entry about target may be shown to the
// caller; the caller holds v.mu.
func (v *Vault) auditVisible(target string) bool {
	if r, ok := v.st.records.lookup(target); ok {
		return v.canRead(r.Namespace)
	}
	if rel, ok := v.st.relations[target]; ok {
		return v.canRead(rel.Namespace)
	}
	return true
}

// Version is a number that grows with every change to what the vault
// holds, whoever made it: the audit chain's head, since every store,
// supersede, forget, link and expiry appends an entry. Equal versions of
// one open vault mean equal contents, so a reader can keep what it
// computed from them.
func (v *Vault) Version() (uint64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return 0, err
	}
	return v.st.audit.head, nil
}
