package vaultfmt

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mappingRSS is the resident size in KiB of the mapping that holds b, from
// /proc/self/smaps.
func mappingRSS(t *testing.T, b []byte) int {
	t.Helper()
	addr := uint64(uintptr(unsafe.Pointer(&b[0])))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && l <= addr && addr < h
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			var kb int
			fmt.Sscanf(strings.TrimPrefix(line, "Rss:"), "%d", &kb)
			return kb
		}
	}
	t.Fatalf("mapping of %#x not found in smaps", addr)
	return 0
}

// TestImagePassedDropsPages: once a replay has passed a mapped image's
// bytes, their pages leave the resident set, and reading them again still
// gives the file's bytes.
func TestImagePassedDropsPages(t *testing.T) {
	im, want := mappedImage(t)
	var sum byte
	for i := 0; i < len(im.data); i += 4096 {
		sum += im.data[i]
	}
	before := mappingRSS(t, im.data)
	if before < 20<<10 {
		t.Fatalf("only %d KiB resident after reading 24 MiB", before)
	}
	im.passed(1 << 20) // less than dropChunk: nothing yet
	if got := mappingRSS(t, im.data); got < before-512 {
		t.Errorf("a pass under dropChunk dropped pages: %d → %d KiB", before, got)
	}
	im.passed(16<<20 + 100)
	if im.dropped != 16<<20 {
		t.Errorf("dropped through %d, want the page boundary %d", im.dropped, 16<<20)
	}
	after := mappingRSS(t, im.data)
	if after > before-15<<10 {
		t.Errorf("resident %d KiB before, %d after passing 16 MiB", before, after)
	}
	if !bytes.Equal(im.data, want) {
		t.Fatal("the image reads back differently after its pages were dropped")
	}
	pageSink = sum
}

var pageSink byte

// TestImageSweepingRewinds: a compaction walks the old file twice (the
// live items' seals, then the copy); the second walk, wrapped by sweeping,
// hands its pages back again although the first already passed them all.
func TestImageSweepingRewinds(t *testing.T) {
	im, want := mappedImage(t)
	walk := func() {
		var sum byte
		fn := im.sweeping(func(off, end int64, _ []entry) error {
			for i := off; i < end; i += 4096 {
				sum += im.data[i]
			}
			return nil
		})
		for off := int64(0); off < int64(len(want)); off += 1 << 20 {
			if err := fn(off, off+1<<20, nil); err != nil {
				t.Fatal(err)
			}
		}
		pageSink = sum
	}
	for pass := range 2 {
		walk()
		if got := mappingRSS(t, im.data); got > 5<<10 {
			t.Errorf("walk %d: %d KiB of 24 MiB still resident after the sweep", pass+1, got)
		}
	}
	if !bytes.Equal(im.data, want) {
		t.Fatal("the image reads back differently after its pages were dropped")
	}
}

// mappedImage is a 24 MiB file of random bytes read as a mapped image
// (the test skips when the image is read instead), and those bytes. The
// file and the image are released when the test ends.
func mappedImage(t *testing.T) (*image, []byte) {
	t.Helper()
	want := make([]byte, 24<<20)
	rand.Read(want)
	path := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	im, err := readImage(f, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(im.release)
	if im.mapped == nil {
		t.Skip("the image was read, not mapped")
	}
	return im, want
}
