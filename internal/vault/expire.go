package vault

import (
	"fmt"
	"sort"

	"github.com/compartment/compartment/vaultfmt"
)

// Expire removes every memory whose expiry day has passed (the day itself
// is still true) and returns their ids. It runs on open and hourly while
// serving when the expire_memories setting is on; `compartment expire` runs
// it by hand whatever the setting says.
func (v *Vault) Expire() ([]string, error) {
	if v.readOnly {
		return nil, fmt.Errorf("expire: %w", ErrReadOnly)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	// Nothing to remove is not a write: a vault on read-only media opens
	// for reading without a spurious error from the sweep.
	if len(v.expiredIDs()) == 0 {
		return nil, nil
	}
	var expired []string
	err := v.update(func() ([]vaultfmt.Change, error) {
		expired = v.expiredIDs()
		b := v.newBatch()
		for _, id := range expired {
			b.deleteItem(id, "expire")
		}
		return b.changes, nil
	})
	return expired, err
}

// expiredIDs lists records past their last true day that the caller may
// write; the caller holds v.mu.
func (v *Vault) expiredIDs() []string {
	today := v.today().Format(DateLayout)
	var ids []string
	v.st.records.facets(func(r facet) {
		if r.Expires != "" && r.Expires < today && v.cfg.Access(v.caller, r.Namespace) == AccessRW {
			ids = append(ids, r.id())
		}
	})
	sort.Strings(ids)
	return ids
}
