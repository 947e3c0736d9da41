package vaultfmt

import (
	"fmt"
	"io"
	"os"

	"github.com/edsrzf/mmap-go"
)

// mmapThreshold is the size above which a whole-file read maps the file
// instead of copying it: a large vault is then read straight from the page
// cache once, and small ones skip the mapping's setup cost.
const mmapThreshold = 1 << 20

// readImage returns the first size bytes of f and a release function. Large
// files are mapped read-only; the mapping is valid until release, and the
// caller must hold a lock that keeps writers from truncating f meanwhile
// (a truncated mapping faults). Nothing from it may outlive release.
func readImage(f *os.File, size int64) ([]byte, func(), error) {
	if size <= 0 {
		return nil, func() {}, nil
	}
	if size >= mmapThreshold && int64(int(size)) == size {
		if m, err := mmap.MapRegion(f, int(size), mmap.RDONLY, 0, 0); err == nil {
			return m, func() { _ = m.Unmap() }, nil
		}
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("vaultfmt: read %s: %w", f.Name(), err)
	}
	return buf[:n], func() {}, nil
}
