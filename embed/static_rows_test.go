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
	if kb := mappedKB(t, staticModelFile); kb < 1024 {
		t.Logf("only %d kB of the model resident without the cache: fault-around may be off here", kb)
	}
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
	if kb := mappedKB(t, staticModelFile); kb > 64 {
		t.Errorf("%d kB of the model still mapped after the queries, want the pages dropped", kb)
	}
	docs, _ := enc.EmbedDocuments(queries[:3])
	if got, _ := enc.EmbedQuery(queries[0]); !slices.Equal(docs[0].Vectors[0], got) {
		t.Errorf("documents and queries differ with the cache on")
	}
}
