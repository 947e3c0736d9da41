package vaultfmt

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// Lock modes on <path>.lock, as LockFileEx flags. Windows's byte-range
// locks stand in for flock: a shared lock admits other shared ones, an
// exclusive one admits nobody, and they belong to the handle, so two
// handles in one process exclude each other just as two processes do.
const (
	lockShared    = 0
	lockExclusive = windows.LOCKFILE_EXCLUSIVE_LOCK
)

// lockRange is the byte range every lock covers: the first byte, whatever
// the lock file's length (a range past the end is allowed).
const lockRange = 1

// flock waits for the lock in mode how on f.
func flock(f *os.File, how int) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), uint32(how), 0, lockRange, 0, &ol)
}

// funlock releases the lock on f.
func funlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, lockRange, 0, &ol)
}

// linkCount is the number of names f has; after a compaction renamed over
// it, 0 means no one else can reach the old bytes by name.
func linkCount(f *os.File) (uint64, bool) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, false
	}
	return uint64(info.NumberOfLinks), true
}

// isReadOnlyErr reports whether opening for writing failed only for want
// of write access.
func isReadOnlyErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, windows.ERROR_WRITE_PROTECT)
}
