package session

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive waits for an exclusive LockFileEx lock on f's first byte.
// Closing f releases it.
func lockExclusive(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

// fileOwner: Windows files have ACLs, not an owner's uid; the directory's
// privacy comes from the user's profile ACL.
func fileOwner(fi fs.FileInfo) (int, bool) { return 0, false }
