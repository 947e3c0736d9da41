package vault

import (
	"fmt"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// BulkFact is one memory of a bulk set: the reference facts or an installed
// pack.
type BulkFact struct {
	Text       string
	Source     string
	Tags       []string
	Discovered string   // YYYY-MM-DD; "" = today
	Importance *float64 // nil: the default 0.5
	Kind       string   // "" = fact
}

// BulkResult says what replacing a bulk set changed.
type BulkResult struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Kept    int `json:"kept"`
}

// bulkScope selects the records a bulk set owns.
type bulkScope struct {
	namespace string
	reference bool
	check     func() error // if set, run under the lock after refresh: a refusal changes nothing
}

func (s bulkScope) owns(r *Record) bool {
	return r.Namespace == s.namespace && r.Reference == s.reference
}

// bulkReplace makes the live records in scope exactly facts (matched by
// text and source): records already there stay untouched, new ones are
// embedded and written, the others are deleted. Nothing outside the scope
// is read for duplicates or changed. The whole change is one batch (one
// append, one fsync), with an audit entry for the whole change and one for
// each item, so audit verify still names a record slipped in without one.
func (v *Vault) bulkReplace(scope bulkScope, facts []BulkFact, op, target string) (BulkResult, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return BulkResult{}, err
	}
	if err := checkNamespace(scope.namespace); err != nil {
		return BulkResult{}, err
	}
	if err := v.checkNamespaceCase(scope.namespace, nil); err != nil {
		return BulkResult{}, err
	}
	if scope.check != nil {
		if err := scope.check(); err != nil {
			return BulkResult{}, err
		}
	}
	have := map[string]*Record{}
	var stale []string
	for _, r := range v.st.records.all() {
		if !scope.owns(r) {
			continue
		}
		if _, dup := have[bulkKey(r.Text, r.Source)]; dup {
			stale = append(stale, r.ID)
			continue
		}
		have[bulkKey(r.Text, r.Source)] = r
	}
	today := v.today().Format(DateLayout)
	var res BulkResult
	var fresh []*Record
	wanted := map[string]bool{}
	for i, f := range facts {
		text, source := strings.TrimSpace(f.Text), strings.TrimSpace(f.Source)
		if text == "" || source == "" {
			return BulkResult{}, invalidf("fact %d has no text or no source (nothing was changed)", i)
		}
		key := bulkKey(text, source)
		if wanted[key] {
			continue
		}
		wanted[key] = true
		if _, ok := have[key]; ok {
			res.Kept++
			continue
		}
		r, err := v.bulkRecord(scope, f, text, source, today)
		if err != nil {
			return BulkResult{}, fmt.Errorf("fact %d: %w (nothing was changed)", i, err)
		}
		fresh = append(fresh, r)
	}
	for key, r := range have {
		if !wanted[key] {
			stale = append(stale, r.ID)
		}
	}
	res.Added, res.Removed = len(fresh), len(stale)
	if len(fresh) == 0 && len(stale) == 0 {
		return res, nil
	}
	if err := v.embedRecords(fresh); err != nil {
		return BulkResult{}, err
	}
	err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		// One entry names the change as a whole; each item still gets its
		// own, so audit verify can tell a bulk write from a record that
		// was slipped in without one.
		b.logAudit(op, fmt.Sprintf("%s +%d -%d", target, res.Added, res.Removed))
		for _, id := range stale {
			b.deleteItem(id, op)
		}
		for _, r := range fresh {
			id, err := newID()
			if err != nil {
				return nil, err
			}
			b.seq++
			r.ID, r.Seq = idString(id), b.seq
			b.putRecord(r, op)
		}
		return b.changes, nil
	})
	if err != nil {
		return BulkResult{}, err
	}
	return res, nil
}

func (v *Vault) bulkRecord(scope bulkScope, f BulkFact, text, source, today string) (*Record, error) {
	tags, err := cleanTags(f.Tags)
	if err != nil {
		return nil, err
	}
	kind := f.Kind
	if kind == "" {
		kind = KindFact
	}
	if kind != KindFact && kind != KindOpinion {
		return nil, invalidf("kind %q: allowed values are fact, opinion", f.Kind)
	}
	importance := 0.5
	if f.Importance != nil {
		importance = *f.Importance
	}
	discovered := f.Discovered
	if discovered == "" {
		discovered = today
	} else if _, err := time.Parse(DateLayout, discovered); err != nil {
		return nil, invalidf("discovered %q: use a date like %s", discovered, today)
	}
	r := &Record{
		Text: text, Source: source, Discovered: discovered, Created: v.now(),
		Namespace: scope.namespace, Tags: tags, TagsOrigin: tags,
		Importance: min(max(importance, 0), 1), Kind: kind, Caller: v.caller,
		Reference: scope.reference,
	}
	if kind == KindOpinion {
		r.Affirmed = r.Created
	}
	return r, nil
}

func bulkKey(text, source string) string { return text + "\x00" + source }
