package vault

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// claimLines streams n JSONL import lines of generated claims without
// holding them: the reader an import of a large file sees.
type claimLines struct {
	r    *rand.Rand
	i, n int
	buf  []byte
}

func (c *claimLines) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.i == c.n {
			return 0, io.EOF
		}
		c.buf = fmt.Appendf(nil, "{\"text\": %q, \"source\": \"bench\"}\n", benchClaim(c.r, c.i))
		c.i++
	}
	k := copy(p, c.buf)
	c.buf = c.buf[k:]
	return k, nil
}

// BenchmarkImportStream imports IMPORT_BENCH_N (default 20,000) generated lines
// into a new vault in one streaming Import, and reports the rate and the
// heap in use at the end.
func BenchmarkImportStream(b *testing.B) {
	n := 20000
	if k, err := strconv.Atoi(os.Getenv("IMPORT_BENCH_N")); err == nil && k > 0 {
		n = k
	}
	enc := staticEncoder(b)
	for range b.N {
		path := filepath.Join(b.TempDir(), "import.vault")
		v, err := Create(path, Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: testKDF})
		if err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		res, err := v.Import(&claimLines{r: rand.New(rand.NewPCG(1, 2)), n: n}, "bench", nil)
		if err != nil || res.Stored != n {
			b.Fatalf("import: %+v %v", res, err)
		}
		b.ReportMetric(float64(n)/time.Since(t).Seconds(), "lines/s")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap_MB")
		v.Close()
	}
}

// lineReader hands out one line per Read, calling between (when set) just
// before line k+1 (1-based) is read: an import has then committed every
// batch of lines 1..k that is full.
type lineReader struct {
	lines   []string
	next    int
	between func(k int)
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.next == len(r.lines) {
		return 0, io.EOF
	}
	if r.between != nil {
		r.between(r.next)
	}
	line := r.lines[r.next] + "\n"
	if len(p) < len(line) {
		return 0, io.ErrShortBuffer
	}
	r.next++
	return copy(p, line), nil
}

// TestImportKnowsAcrossBatches: what the import keeps across batches
// answers as reading the vault per batch did: a claim of an earlier batch
// is present, a claim another writer stored between two batches is
// present, and a claim another writer forgot between two batches is new
// again.
func TestImportKnowsAcrossBatches(t *testing.T) {
	h := newHarness(t, nil)
	v, w := h.open("user"), h.open("user")
	var lines []string
	for i := range 3 * importBatch {
		text := fmt.Sprintf("Filler claim number %d about the garden", i)
		switch i {
		case 3:
			text = "Alpha runs the night shift"
		case 4:
			text = "Gamma keeps the spare keys"
		case importBatch + 5, 2*importBatch + 5:
			text = "Alpha runs the night shift!" // batch 1's claim, up to punctuation
		case importBatch + 6:
			text = "Beta was stored by another writer"
		case importBatch + 7:
			text = "Gamma keeps the spare keys"
		}
		lines = append(lines, fmt.Sprintf("{\"text\": %q, \"source\": \"notes\"}", text))
	}
	r := &lineReader{lines: lines, between: func(k int) {
		if k != importBatch {
			return
		}
		h.store(w, StoreRequest{Text: "Beta was stored by another writer"})
		for id, rec := range w.st.records.all() {
			if rec.Text == "Gamma keeps the spare keys" {
				if _, err := w.Forget(id, false); err != nil {
					t.Fatal(err)
				}
			}
		}
	}}
	res, err := v.Import(r, "notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Skipped: Alpha twice (earlier batch) and Beta (the other writer's).
	if res.Stored != 3*importBatch-3 || res.Present != 3 {
		t.Fatalf("import %+v, want %d stored and 3 present", res, 3*importBatch-3)
	}
	gammas := 0
	for _, rec := range v.st.records.all() {
		if strings.HasPrefix(rec.Text, "Gamma keeps the spare keys") {
			gammas++
		}
	}
	if gammas == 0 {
		t.Fatal("the claim forgotten between batches was not stored again")
	}
}
