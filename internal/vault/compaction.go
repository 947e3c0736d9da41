package vault

import "github.com/compartment/compartment/vaultfmt"

// Compaction after a write runs beside the vault's other calls instead of
// inside the write (issue #28: the locking matches the work). On a large
// vault the rewrite takes most of a second, and under v.mu it held up
// every search and store for that long. Now the write that finds a
// compaction due takes the snapshot (vaultfmt.StartBuild, brief: the
// index segment is derived then) and returns; a goroutine writes the new
// file without v.mu or the writer lock, then takes both briefly to commit,
// carrying into the new file whatever was written meanwhile (see
// vaultfmt.Build). Close waits for it. The write was acknowledged before
// the compaction began and is in the journal whatever the compaction
// does, so a failed compaction loses nothing: its error is kept for
// [Vault.WaitCompaction], and the next write that finds one due retries.

// compactionPaused, when set (by tests), is called by the compaction's
// goroutine after the build and before the commit, without v.mu: what a
// test does in it happens "during the build".
var compactionPaused func()

// compactSoon starts a compaction unless one is running; the caller holds
// v.mu. Where builds outside the lock are not available it compacts at
// once, as before.
func (v *Vault) compactSoon() error {
	if v.building {
		return nil
	}
	if !vaultfmt.UnlockedBuilds {
		return v.file.Compact()
	}
	b, err := v.file.StartBuild()
	if serr := v.st.settle(); err == nil {
		err = serr
	}
	if err != nil || b == nil {
		return err // nil: another process is building; it compacts
	}
	done := make(chan struct{})
	v.building, v.buildDone = true, done
	go func() {
		defer close(done)
		_ = b.Run() // an error is the commit's to handle
		if compactionPaused != nil {
			compactionPaused()
		}
		v.commitBuild(b)
		if serverMemory.Load() {
			// The build's copies of the file are garbage now.
			SettleServerMemory()
		}
	}()
	return nil
}

// commitBuild commits the build b under v.mu and keeps its error.
func (v *Vault) commitBuild(b *vaultfmt.Build) {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, err := v.file.CommitBuild(b)
	if serr := v.st.settle(); err == nil {
		err = serr
	}
	if err == nil {
		err = v.checkRollback(true)
	}
	v.buildErr = err
	v.building = false
}

// waitBuild waits for a running compaction; the caller holds v.mu, which
// is released meanwhile.
func (v *Vault) waitBuild() {
	for v.building {
		done := v.buildDone
		v.mu.Unlock()
		<-done
		v.mu.Lock()
	}
}

// WaitCompaction waits for a compaction started after a write to finish
// and returns its error (nil when none ran or it succeeded).
func (v *Vault) WaitCompaction() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.waitBuild()
	err := v.buildErr
	v.buildErr = nil
	return err
}
