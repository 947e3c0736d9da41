//go:build unix

package vaultfmt

import (
	"os"

	"golang.org/x/sys/unix"
)

// buildsUnlocked says whether a compaction may be built outside the
// writer lock here ([Vault.StartBuild]).
const buildsUnlocked = true

// tryLockBuild takes the exclusive lock on a build file without waiting;
// false when another process holds it (its build is running).
func tryLockBuild(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}
