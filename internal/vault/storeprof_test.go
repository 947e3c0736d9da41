//go:build unix

package vault

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// TestStoreProfile copies the vault VAULT_STORE_PROFILE_VAULT (and its
// .config.json) into a temporary directory, opens the copy with the
// bundled static model (passphrase VAULT_STORE_PROFILE_PASS) and stores
// VAULT_STORE_PROFILE_N (default 200) new facts one at a time, logging the
// wall and CPU time of a store at p50 and p95; with
// VAULT_STORE_PROFILE_OUT=FILE it writes the stores' CPU profile there.
// A measuring tool (#29) for the cost of a store as the vault grows,
// skipped unless the variable is set. The kept vault itself is never
// written.
func TestStoreProfile(t *testing.T) {
	src := os.Getenv("VAULT_STORE_PROFILE_VAULT")
	if src == "" {
		t.Skip("VAULT_STORE_PROFILE_VAULT not set")
	}
	n := 200
	if s := os.Getenv("VAULT_STORE_PROFILE_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "v.vault")
	copyFile(t, src, path)
	copyFile(t, src+".config.json", path+".config.json")
	enc := staticEncoder(t)
	v, err := Open(path, Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(os.Getenv("VAULT_STORE_PROFILE_PASS"))}, Encoder: enc})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// The first store pays for what the open left lazy: timed apart.
	stopFirst := cpuProfile(t, os.Getenv("VAULT_STORE_PROFILE_FIRST"))
	c0, t0 := cpuTime(), time.Now()
	if _, err := v.Store(StoreRequest{Text: "The profiling warm-up fact is number zero", Source: "store profile"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("first store: wall %v cpu %v", time.Since(t0), cpuTime()-c0)
	stopFirst()
	defer cpuProfile(t, os.Getenv("VAULT_STORE_PROFILE_OUT"))()
	// Each store is followed by a bare append and fdatasync of a frame's
	// size to a file beside the vault, so the fsync alone is measured on
	// the same disk under the same load, and each store's time beyond it
	// is the store's wall time less its neighbour's fsync.
	side, err := os.Create(path + ".fsync-probe")
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close()
	frame := make([]byte, 2048)
	wall := make([]time.Duration, n)
	cpu := make([]time.Duration, n)
	sync := make([]time.Duration, n)
	beyond := make([]time.Duration, n)
	stored := 0
	for i := range n {
		text := fmt.Sprintf("The profiling host number %d listens on port %d in rack %d", i, 1000+i, i%37)
		c0, t0 := cpuTime(), time.Now()
		res, err := v.Store(StoreRequest{Text: text, Source: "store profile", Tags: []string{"profile"}})
		wall[i], cpu[i] = time.Since(t0), cpuTime()-c0
		if err != nil {
			t.Fatal(err)
		}
		if res.Stored {
			stored++
		}
		t1 := time.Now()
		if _, err := side.Write(frame); err != nil {
			t.Fatal(err)
		}
		if err := side.Sync(); err != nil {
			t.Fatal(err)
		}
		sync[i] = time.Since(t1)
		beyond[i] = wall[i] - sync[i]
	}
	for _, d := range [][]time.Duration{wall, cpu, sync, beyond} {
		slices.Sort(d)
	}
	p := func(d []time.Duration, q float64) time.Duration { return d[int(q*float64(len(d)-1))] }
	t.Logf("%d records: %d of %d stored; store wall p50 %v p95 %v, cpu p50 %v p95 %v; bare fsync p50 %v p95 %v; store beyond its neighbour's fsync p50 %v p95 %v",
		v.st.records.len(), stored, n, p(wall, 0.5), p(wall, 0.95), p(cpu, 0.5), p(cpu, 0.95), p(sync, 0.5), p(sync, 0.95), p(beyond, 0.5), p(beyond, 0.95))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	// Flushed now, so the first store's fsync does not write the copy.
	if err := out.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
