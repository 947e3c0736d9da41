//go:build linux

package session

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ForbidCoreDumps keeps key material out of core files, as ssh-agent and
// gpg-agent do: the core size limit goes to 0 (soft and hard, so it cannot
// be raised again) and the process is made non-dumpable, which also stops
// other processes of the user from reading its memory through ptrace or
// /proc/<pid>/mem. Call it before any key is read.
func ForbidCoreDumps() error {
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 0, Max: 0}); err != nil {
		return fmt.Errorf("session: core size limit: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("session: not dumpable: %w", err)
	}
	return nil
}
