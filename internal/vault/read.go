package vault

import (
	"fmt"
	"sort"
	"strings"
)

// Get returns the record with this id (or a unique prefix of at least 6
// digits), superseded ones included, if the caller may read its namespace.
func (v *Vault) Get(id string) (*Record, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	r, err := v.lookup(id)
	if err != nil {
		return nil, err
	}
	cp := *r
	return &cp, nil
}

// lookup finds a readable record by id or unique prefix; the caller holds
// v.mu.
func (v *Vault) lookup(id string) (*Record, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if r, ok := v.st.records[id]; ok {
		if !v.canRead(r.Namespace) {
			return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
		}
		return r, nil
	}
	if len(id) < 6 || len(id) >= 32 {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	var found *Record
	for key, r := range v.st.records {
		if strings.HasPrefix(key, id) && v.canRead(r.Namespace) {
			if found != nil {
				return nil, fmt.Errorf("%s: %w", id, ErrAmbiguous)
			}
			found = r
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return found, nil
}

// RecentRequest selects memories for [Vault.Recent].
type RecentRequest struct {
	Limit     int    // default 20
	Namespace string // "" = every readable namespace
	All       bool   // include reference facts
}

// Recent returns the newest live memories, oldest first, reference facts
// hidden unless All.
func (v *Vault) Recent(req RecentRequest) ([]*Record, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 20
	}
	var out []*Record
	for _, r := range v.st.records {
		if !r.Live() || (r.Reference && !req.All) || !v.canRead(r.Namespace) {
			continue
		}
		if req.Namespace != "" && r.Namespace != req.Namespace {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if len(out) > limit {
		out = out[:limit]
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return copies(out), nil
}

func copies(rs []*Record) []*Record {
	out := make([]*Record, len(rs))
	for i, r := range rs {
		cp := *r
		out[i] = &cp
	}
	return out
}

// NamespaceInfo is one namespace and what it holds.
type NamespaceInfo struct {
	Name       string `json:"name"`
	Records    int    `json:"records"`    // live
	Superseded int    `json:"superseded"` // kept, readable by id
	Access     Access `json:"access"`
}

// Namespaces lists the namespaces the caller can see, with counts.
func (v *Vault) Namespaces() ([]NamespaceInfo, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	byName := map[string]*NamespaceInfo{}
	for _, r := range v.st.records {
		if !v.canRead(r.Namespace) {
			continue
		}
		ni, ok := byName[r.Namespace]
		if !ok {
			ni = &NamespaceInfo{Name: r.Namespace, Access: v.cfg.Access(v.caller, r.Namespace)}
			byName[r.Namespace] = ni
		}
		if r.Live() {
			ni.Records++
		} else {
			ni.Superseded++
		}
	}
	out := make([]NamespaceInfo, 0, len(byName))
	for _, ni := range byName {
		out = append(out, *ni)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
