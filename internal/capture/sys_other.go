//go:build !unix && !windows

package capture

import (
	"errors"
	"io/fs"
	"os"
)

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// lockFile: locking is implemented for Unix and Windows only, as for the
// vault itself.
func lockFile(f *os.File) error {
	return errors.New("capture: file locking is not implemented on this platform")
}

// extraLinks: hard links are not checked here.
func extraLinks(fs.FileInfo) bool { return false }
