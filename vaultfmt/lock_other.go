//go:build !unix && !windows

package vaultfmt

import (
	"errors"
	"io/fs"
	"os"
)

// Advisory locking is implemented for Unix only; elsewhere the package
// builds but refuses to open a vault rather than run without the lock.
const (
	lockShared    = 1
	lockExclusive = 2
)

var errNoLock = errors.New("vaultfmt: file locking is not implemented on this platform")

func flock(f *os.File, how int) error { return errNoLock }

func funlock(f *os.File) error { return nil }

func linkCount(f *os.File) (uint64, bool) { return 0, false }

func isReadOnlyErr(err error) bool { return errors.Is(err, fs.ErrPermission) }
