package capture

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// openNoFollow opens path for reading. The caller has checked with Lstat
// that it is a regular file, not a link, and compares the opened file
// with that check.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// lockFile waits for an exclusive LockFileEx lock on f's first byte.
// Closing f releases it.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

// extraLinks: hard links are not checked here.
func extraLinks(fs.FileInfo) bool { return false }
