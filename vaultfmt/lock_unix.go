//go:build unix

package vaultfmt

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Advisory lock modes on <path>.lock.
const (
	lockShared    = unix.LOCK_SH
	lockExclusive = unix.LOCK_EX
)

// flock takes or changes the advisory lock on f, retrying on EINTR. flock
// locks belong to the open file description, so two handles in one process
// exclude each other just as two processes do.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// funlock releases the lock on f.
func funlock(f *os.File) error { return flock(f, unix.LOCK_UN) }

// linkCount is the number of names f's inode has; after a compaction
// renamed over it, 0 means no one else can reach the old bytes by name.
func linkCount(f *os.File) (uint64, bool) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// isReadOnlyErr reports whether opening for writing failed only for want
// of write access.
func isReadOnlyErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}
