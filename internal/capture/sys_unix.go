//go:build unix

package capture

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow opens path for reading without following a symbolic link
// in its last component, and without blocking on a FIFO put in a regular
// file's place after it was checked.
func openNoFollow(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// lockFile waits for flock's exclusive lock on f, retrying on EINTR.
// Closing f releases it.
func lockFile(f *os.File) error {
	for {
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != unix.EINTR {
			return err
		}
	}
}

// extraLinks says whether a regular file has another name too (a hard
// link): a CLAUDE.md hard-linked to ~/.aws/credentials is a regular file
// whose content belongs elsewhere.
func extraLinks(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
