package vault

import (
	"fmt"

	"github.com/compartment/compartment/vaultfmt"
)

// Forget removes a memory from search and from reads. With shred, the
// record's key and sealed body are destroyed in the file at once
// (compaction), so the content cannot be recovered from this vault file.
func (v *Vault) Forget(id string, shred bool) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return "", err
	}
	r, err := v.lookup(id)
	if err != nil {
		return "", err
	}
	if err := v.checkWrite(r.Namespace); err != nil {
		return "", err
	}
	op := "forget"
	if shred {
		op = "shred"
	}
	full := r.ID
	err = v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		b.deleteItem(full, op)
		return b.changes, nil
	})
	if err != nil {
		return "", err
	}
	if shred {
		raw, _ := parseID(full)
		if err := v.file.Shred([]vaultfmt.ID{raw}); err != nil {
			return "", fmt.Errorf("shred %s: %w (the memory is forgotten; run `compartment compact` to finish destroying it)", full, err)
		}
	}
	return full, nil
}
