package vault

import (
	"fmt"
	"slices"
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
	// A whole id is looked up alone (no record built but its own); only
	// a prefix reads every id.
	items := v.st.records.all
	if r := v.st.records.get(strings.ToLower(strings.TrimSpace(id))); r != nil {
		items = func() map[string]*Record { return map[string]*Record{r.ID: r} }
	}
	key, err := resolveID(id, items(), func(r *Record) bool { return v.canRead(r.Namespace) })
	if err != nil {
		return nil, err
	}
	return v.st.records.get(key), nil
}

// MinIDPrefix is the shortest id prefix accepted in place of a whole id.
const MinIDPrefix = 6

// resolveID turns an id or a unique prefix of at least [MinIDPrefix]
// characters into the key of the one item of items that visible accepts.
// A prefix that is too short, matches several items, or matches none is
// an error wrapping ErrTooShort, ErrAmbiguous or ErrNotFound, each saying
// what to do.
func resolveID[T any](id string, items map[string]T, visible func(T) bool) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if it, ok := items[id]; ok {
		if !visible(it) {
			return "", fmt.Errorf("%s: %w", id, ErrNotFound)
		}
		return id, nil
	}
	if id == "" {
		return "", fmt.Errorf("%w: give an id (or at least its first %d characters)", ErrInvalid, MinIDPrefix)
	}
	if len(id) < MinIDPrefix {
		return "", fmt.Errorf("%s: %w: give at least the first %d characters of the id", id, ErrTooShort, MinIDPrefix)
	}
	found, n := "", 0
	for key, it := range items {
		if strings.HasPrefix(key, id) && visible(it) {
			found, n = key, n+1
		}
	}
	switch {
	case n > 1:
		return "", fmt.Errorf("%s: %w (%d of them): give more characters of the id", id, ErrAmbiguous, n)
	case n == 0:
		return "", fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return found, nil
}

// RecentRequest selects memories for [Vault.Recent].
type RecentRequest struct {
	Limit     int    // default 20
	Namespace string // "" = every readable namespace
	All       bool   // include reference facts
	// NewestFirst lists them newest first, as the CLI, the dashboard and
	// the panel show them; the default is the spec's oldest first
	// (memory_recent).
	NewestFirst bool
}

// Recent returns the newest live memories, oldest first (newest first
// with NewestFirst), reference facts hidden unless All.
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
	// Chosen by their facets, so only the records returned are built.
	var picked []facet
	v.st.records.facets(func(r facet) {
		if !r.Live || (r.Reference && !req.All) || !v.canRead(r.Namespace) {
			return
		}
		if req.Namespace != "" && r.Namespace != req.Namespace {
			return
		}
		picked = append(picked, r)
	})
	sort.Slice(picked, func(i, j int) bool { return picked[i].Seq > picked[j].Seq })
	if len(picked) > limit {
		picked = picked[:limit]
	}
	out := make([]*Record, len(picked))
	for i, f := range picked {
		out[i] = v.st.records.get(f.id())
	}
	if !req.NewestFirst {
		slices.Reverse(out)
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
	v.st.records.facets(func(r facet) {
		if !v.canRead(r.Namespace) {
			return
		}
		ni, ok := byName[r.Namespace]
		if !ok {
			ni = &NamespaceInfo{Name: r.Namespace, Access: v.cfg.Access(v.caller, r.Namespace)}
			byName[r.Namespace] = ni
		}
		if r.Live {
			ni.Records++
		} else {
			ni.Superseded++
		}
	})
	out := make([]NamespaceInfo, 0, len(byName))
	for _, ni := range byName {
		out = append(out, *ni)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
