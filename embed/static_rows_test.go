//go:build linux

package embed

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
)

// mappedKB counts the pages of s mapped into this process
// (/proc/self/pagemap).
func mappedKB(t *testing.T, s string) int {
	t.Helper()
	start, n := pagesWithin(s, 4096)
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	buf := make([]byte, n/4096*8)
	if _, err := f.ReadAt(buf, int64(start/4096*8)); err != nil {
		t.Skipf("pagemap: %v", err)
	}
	pages := 0
	for i := 0; i < len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])>>63 == 1 {
			pages++
		}
	}
	return pages * 4
}

func TestKeepStaticModelSmall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("page dropping is Linux-only")
	}
	enc, err := OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	queries := make([]string, 100)
	for i := range queries {
		queries[i] = fmt.Sprintf("when does flight XQ%d to Lisbon leave from gate B%d for the %s team", i, i%40, []string{"design", "legal", "sales"}[i%3])
	}
	want := make([][]float32, len(queries))
	for i, q := range queries {
		want[i], _ = enc.EmbedQuery(q)
	}
	without := mappedKB(t, staticModelFile)
	KeepStaticModelSmall()
	defer keepSmall.Store(false)
	for pass := range 2 { // the first pass fills the cache, the second reads it
		for i, q := range queries {
			got, _ := enc.EmbedQuery(q)
			if !slices.Equal(got, want[i]) {
				t.Fatalf("pass %d, query %d: the cached rows give another vector", pass, i)
			}
		}
	}
	docs, _ := enc.EmbedDocuments(queries[:3])
	if got, _ := enc.EmbedQuery(queries[0]); !slices.Equal(docs[0].Vectors[0], got) {
		t.Errorf("documents and queries differ with the cache on")
	}
	// Normally nothing stays mapped; under the race detector about 1.8 MB
	// of the range stays present after MADV_DONTNEED, so the test asks for
	// a quarter of the uncached footprint at most.
	with := mappedKB(t, staticModelFile)
	t.Logf("model mapped after 100 queries: %d kB without the cache, %d kB with it", without, with)
	if without < 1024 {
		t.Skipf("only %d kB mapped without the cache: this kernel does not fault around", without)
	}
	if with*4 > without {
		t.Errorf("%d kB of the model still mapped with the cache (%d kB without), want the pages dropped", with, without)
	}
}

func TestOutsideModel(t *testing.T) {
	ms, n := pagesWithin(staticModelFile, 4096)
	me := ms + n
	for _, tc := range []struct {
		start, end uintptr
		want       [][2]uintptr
	}{
		{ms - 8192, me + 4096, [][2]uintptr{{ms - 8192, ms}, {me, me + 4096}}},
		{ms, me, nil},
		{me, me + 4096, [][2]uintptr{{me, me + 4096}}},
		{ms - 4096, ms + 4096, [][2]uintptr{{ms - 4096, ms}}},
	} {
		if got := outsideModel(tc.start, tc.end); !slices.Equal(got, tc.want) {
			t.Errorf("outsideModel(%x, %x) = %x, want %x", tc.start, tc.end, got, tc.want)
		}
	}
}
