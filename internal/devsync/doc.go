// Package devsync keeps one memory on every device through a folder that a
// file-sync engine (Syncthing, rsync, a network drive, git) moves between
// them, with no network code of its own (FORMAT.md section 10).
//
// Each device appends only to its own log in the folder: sealed frames of
// operations (store, supersede, forget, shred, link, unlink, tags,
// importance, affirm, edit), chained by a MAC and stamped with the device id
// and a hybrid logical clock. No file has two writers, so no engine can
// make a conflict copy. A merge folds every accepted log into one state,
// the same in any order of arrival, and makes the vault match it in one
// batch.
//
// devsync knows the vault only through its narrow seam (vault.SyncObserver,
// vault.MergeSync); it knows nothing of ranking, MCP or the CLI.
package devsync
