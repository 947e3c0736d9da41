package api

import "github.com/compartment/compartment/internal/devsync"

// SyncSetUp is what `sync init` and `sync join` return: the folder, this
// device, and the first merge (MergeError when it failed; the device is
// set up all the same).
type SyncSetUp struct {
	Folder     string         `json:"folder"`
	DeviceID   string         `json:"device_id"` // hex
	Merge      devsync.Report `json:"merge"`
	MergeError string         `json:"merge_error,omitempty"`
}

// SyncStatus is what `sync status` returns.
type SyncStatus struct {
	Status     devsync.Status `json:"status"`
	MergeError string         `json:"merge_error,omitempty"` // the merge done on opening the vault
}

// SyncMerge is what `sync now` returns.
type SyncMerge struct {
	Merge      devsync.Report `json:"merge"`
	MergeError string         `json:"merge_error,omitempty"`
}

// SyncLeave is what `sync leave` returns: the folder left.
type SyncLeave struct {
	Left string `json:"left"`
}

// ErrorText is err's message, "" for nil: the shape of the *_error fields.
func ErrorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
