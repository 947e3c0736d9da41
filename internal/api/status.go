package api

import (
	"github.com/compartment/compartment/internal/shape"
	"github.com/compartment/compartment/internal/vault"
)

// Status is `status --json`, for a locked vault and an open one alike
// (see shape.StatusJSON, where it lives so the panel decodes it without the
// vault).
type Status = shape.StatusJSON

// StatusOf is the status of an open vault. Unlocking it needs the keyfile
// when every key slot does.
func StatusOf(st vault.Status) Status {
	need := len(st.Slots) > 0
	for _, s := range st.Slots {
		need = need && s.Kind == vault.SlotKindKeyfile
	}
	return Status{Path: st.Path, Locked: st.Locked, FileBytes: st.FileBytes, KeyfileRequired: need, Status: &st}
}

// LockedStatus is the status of a vault no credential opens now.
func LockedStatus(path string, fileBytes int64, keyfileRequired bool) Status {
	return Status{Path: path, Locked: true, FileBytes: fileBytes, KeyfileRequired: keyfileRequired}
}

// Forgotten is what forgetting a memory did (`forget --json`,
// memory_forget).
type Forgotten struct {
	ID        string `json:"id"`
	Forgotten bool   `json:"forgotten"`
	Shredded  bool   `json:"shredded"` // its key and content are gone from the file
}

// Unlinked is what removing a relation did (`unlink --json`,
// memory_unlink).
type Unlinked struct {
	ID       string `json:"id"`
	Unlinked bool   `json:"unlinked"`
}
