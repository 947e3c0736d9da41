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

// image is a whole-file read: the bytes, and whether they are a mapping.
type image struct {
	data   []byte
	mapped mmap.MMap
	// dropped is how far [image.passed] has handed pages back.
	dropped int
}

// readImage returns the first size bytes of f. Large files are mapped
// read-only; the mapping is valid until release, and the caller must hold
// a lock that keeps writers from truncating f meanwhile (a truncated
// mapping faults). Nothing from it may outlive release.
func readImage(f *os.File, size int64) (*image, error) {
	if size <= 0 {
		return &image{}, nil
	}
	if size >= mmapThreshold && int64(int(size)) == size {
		if m, err := mmap.MapRegion(f, int(size), mmap.RDONLY, 0, 0); err == nil {
			return &image{data: m, mapped: m}, nil
		}
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("vaultfmt: read %s: %w", f.Name(), err)
	}
	return &image{data: buf[:n]}, nil
}

// release unmaps a mapped image.
func (im *image) release() {
	if im.mapped != nil {
		_ = im.mapped.Unmap()
		im.mapped = nil
	}
}

// passed tells a mapped image that a replay is done with its first end
// bytes: their pages leave this process's resident set (they stay in the
// page cache, and reading them again faults them back in unchanged). A
// replay reads the file once, front to back, so without this an open of a
// 100 MB vault held all 100 MB resident on top of the heap it was
// building, at the moment that heap peaked.
func (im *image) passed(end int64) {
	if im == nil || im.mapped == nil || end <= int64(im.dropped) {
		return
	}
	page := os.Getpagesize()
	upTo := int(min(end, int64(len(im.mapped)))) / page * page
	if upTo-im.dropped < dropChunk {
		return
	}
	dropPages(im.mapped[im.dropped:upTo])
	im.dropped = upTo
}

// dropChunk is the least a [image.passed] call hands back, so the
// system calls stay few.
const dropChunk = 4 << 20

// sweeping is passing for a walk of the image from its start, such as a
// compaction's (which walks the old file twice: for the live items' seals,
// then to copy them): the pages it reads are handed back as it goes, so a
// compaction of a 1.5 GB vault does not end with all of it resident.
func (im *image) sweeping(fn frameFn) frameFn {
	if im != nil {
		im.dropped = 0
	}
	return im.passing(fn)
}

// passing wraps a replay's frame callback so that each applied frame's
// pages are handed back ([image.passed]).
func (im *image) passing(fn frameFn) frameFn {
	return func(off, end int64, es []entry) error {
		if err := fn(off, end, es); err != nil {
			return err
		}
		im.passed(end)
		return nil
	}
}
