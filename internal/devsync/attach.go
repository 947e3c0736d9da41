package devsync

import (
	"log/slog"
	"os"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// Synced reports whether the vault at path belongs to a sync folder (its
// sidecar exists).
func Synced(vaultPath string) bool {
	_, err := os.Stat(SidecarPath(vaultPath))
	return err == nil
}

// AttachIfSynced is [Attach] for a vault that belongs to a sync folder
// and can be written; for any other it does nothing and returns nil (a
// merge on read-only media would be a write). Every command calls it when
// it opens the vault.
func AttachIfSynced(v *vault.Vault) (*Syncer, Report, error) {
	if !Synced(v.Path()) || v.File().ReadOnly() {
		return nil, Report{}, nil
	}
	return Attach(v, Options{})
}

// Serve attaches the server's vault to its sync folder, if it has one,
// and merges whenever the folder changes ([Syncer.Watch], checked every
// interval), for as long as the vault is open. What it merges and every
// problem go to log; a problem never stops the server.
func Serve(v *vault.Vault, interval time.Duration, log *slog.Logger) {
	if !Synced(v.Path()) {
		return
	}
	s, _, err := Attach(v, Options{})
	if s == nil {
		log.Warn("sync: not attached", "error", err)
		return
	}
	if err != nil {
		log.Warn("sync: merge", "error", err)
	}
	s.Watch(interval, func(rep Report, err error) {
		if err != nil {
			log.Warn("sync: merge", "error", err)
			return
		}
		log.Info("sync: merged", "written", rep.Written, "removed", rep.Deleted, "logged", rep.Logged)
	})
}
