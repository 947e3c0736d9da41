package vault

import (
	"fmt"

	"github.com/compartment/compartment/vaultfmt"
)

// IndexReport compares the in-RAM search index with the records.
type IndexReport struct {
	OK      bool `json:"ok"`
	Live    int  `json:"live"`    // live records
	Indexed int  `json:"indexed"` // documents in the search engine
	// Missing counts live records the engine does not hold; Stale counts
	// documents whose record is gone or no longer live.
	Missing int `json:"missing"`
	Stale   int `json:"stale"`
}

// CheckIndex reports whether every live record, and nothing else, is in
// the search index: the check an upgrade that left records unsearchable
// would fail.
func (v *Vault) CheckIndex() (IndexReport, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return IndexReport{}, err
	}
	ix := v.st.index
	rep := IndexReport{Indexed: ix.engine.Len()}
	for id, r := range v.st.records.all() {
		if !r.Live() {
			continue
		}
		rep.Live++
		doc, ok := ix.docOfID(id)
		if !ok || !ix.engine.Has(doc) || ix.rec(doc) == nil || ix.rec(doc).ID != id {
			rep.Missing++
		}
	}
	ix.eachID(func(doc uint32, id vaultfmt.ID) {
		if cur, ok := v.st.records.lookup(idString(id)); !ok || !cur.Live() || !ix.engine.Has(doc) {
			rep.Stale++
		}
	})
	rep.OK = rep.Missing == 0 && rep.Stale == 0 && rep.Indexed == rep.Live
	return rep, nil
}

// String says what the report found, in one line.
func (r IndexReport) String() string {
	if r.OK {
		return fmt.Sprintf("%d live records, all %d indexed", r.Live, r.Indexed)
	}
	return fmt.Sprintf("%d live records, %d indexed, %d missing, %d stale: run `compartment reindex`", r.Live, r.Indexed, r.Missing, r.Stale)
}
