//go:build unix

package vault

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// TestImportProfile imports IMPORT_PROFILE_FILE (JSONL, e.g. an export of
// a kept bench vault), or IMPORT_PROFILE_N generated lines, into a new
// vault with the bundled static model, and logs the rate, the largest
// live heap and the largest heap the runtime held after any batch, and the
// live heap at the end; with IMPORT_PROFILE_OUT=PREFIX it writes
// PREFIX.heap (in use at the end, vault open) and PREFIX.cpu. A measuring
// tool (#29) for what an import holds, skipped unless a variable is set.
func TestImportProfile(t *testing.T) {
	file, n := os.Getenv("IMPORT_PROFILE_FILE"), 0
	if k, err := strconv.Atoi(os.Getenv("IMPORT_PROFILE_N")); err == nil {
		n = k
	}
	if file == "" && n == 0 {
		t.Skip("IMPORT_PROFILE_FILE or IMPORT_PROFILE_N not set")
	}
	enc := staticEncoder(t)
	path := filepath.Join(t.TempDir(), "import.vault")
	v, err := Create(path, Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("IMPORT_PROFILE_OUT")
	if out != "" {
		defer cpuProfile(t, out+".cpu")()
	}
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	var maxLive, maxObjects, maxTotal uint64
	progress := func(int) {
		metrics.Read(samples)
		maxLive = max(maxLive, samples[0].Value.Uint64())
		maxObjects = max(maxObjects, samples[1].Value.Uint64())
		maxTotal = max(maxTotal, samples[2].Value.Uint64())
	}
	t0, c0 := time.Now(), cpuTime()
	var res ImportResult
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err = v.Import(f, "profile", progress)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		res, err = v.Import(&claimLines{r: rand.New(rand.NewPCG(1, 2)), n: n}, "profile", progress)
		if err != nil {
			t.Fatal(err)
		}
	}
	d, cpu := time.Since(t0), cpuTime()-c0
	if err := v.WaitCompaction(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	t.Logf("%d lines, %d stored in %.1f s (%.0f lines/s, cpu %.1f s); after batches: live heap max %.0f MB, heap objects max %.0f MB, runtime total max %.0f MB; at the end live heap %.0f MB",
		res.Lines, res.Stored, d.Seconds(), float64(res.Lines)/d.Seconds(), cpu.Seconds(), mb(maxLive), mb(maxObjects), mb(maxTotal), mb(ms.HeapAlloc))
	if out != "" {
		heapProfile(t, out+".heap")
	}
	v.Close()
}
