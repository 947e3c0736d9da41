package devsync

import "errors"

// Sentinels a caller acts on, tested with errors.Is.
var (
	// ErrNotSynced: the vault has no sync folder (run `sync init` or `sync join`).
	ErrNotSynced = errors.New("devsync: this vault is not synced")
	// ErrRefused: a file in the sync folder was refused (damaged, altered,
	// an older copy, or from a device not on the list); nothing was merged
	// from it.
	ErrRefused = errors.New("devsync: refused")
	// ErrWrongPassphrase: the passphrase (and keyfile) do not open the
	// folder key.
	ErrWrongPassphrase = errors.New("devsync: wrong passphrase for the sync folder")
	// ErrKeyfileRequired: the folder key needs a keyfile as well.
	ErrKeyfileRequired = errors.New("devsync: the sync folder needs the keyfile as well")
)
