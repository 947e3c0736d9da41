//go:build unix

package bench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestSearchProfile opens the kept benchmark vault BENCH_SEARCH_PROFILE_VAULT
// (a copy: `compartment bench --vault-cache DIR` keeps one) with the
// bundled static model, runs the latency table's queries and logs their
// p50/p95; with BENCH_SEARCH_PROFILE_OUT=FILE it writes a CPU profile of
// the searches there. A measuring tool (#29), skipped unless the variable
// is set; BENCH_SEARCH_PROFILE_RECORDS is the vault's --records (default
// 100,000), which the queries are drawn from.
func TestSearchProfile(t *testing.T) {
	path := os.Getenv("BENCH_SEARCH_PROFILE_VAULT")
	if path == "" {
		t.Skip("BENCH_SEARCH_PROFILE_VAULT not set")
	}
	records := 100000
	if s := os.Getenv("BENCH_SEARCH_PROFILE_RECORDS"); s != "" {
		if _, err := fmt.Sscan(s, &records); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := embed.Open(embed.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	t0 := time.Now()
	v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(benchPass)}, Encoder: enc, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	t.Logf("open %v", time.Since(t0))
	heapBefore := liveHeapMB()
	queries := pickQueries(records, 300)
	for _, q := range queries[:30] {
		if _, err := v.Search(vault.SearchRequest{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	defer cpuProfileTo(t, os.Getenv("BENCH_SEARCH_PROFILE_OUT"))()
	// The table's measure: each query's fastest of three passes; and the
	// CPU time per search, which says more on a loaded machine.
	cpu0 := processCPU()
	lat := fastestOf3(queries, func(q string) {
		if _, err := v.Search(vault.SearchRequest{Query: q}); err != nil {
			t.Fatal(err)
		}
	})
	cpu := (processCPU() - cpu0) / time.Duration(3*len(queries))
	t.Logf("%d queries × 3: p50 %v p95 %v, CPU %v per search", len(queries), lat[len(lat)/2], lat[len(lat)*95/100], cpu)
	t.Logf("live heap after open %.1f MB, after the searches %.1f MB", heapBefore, liveHeapMB())
	if out := os.Getenv("BENCH_SEARCH_PROFILE_HEAP"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// liveHeapMB is the live heap after a collection, in MB.
func liveHeapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// cpuProfileTo starts a CPU profile into the file path (none when path is
// empty) and returns what stops it.
func cpuProfileTo(t *testing.T, path string) (stop func()) {
	t.Helper()
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// fastestOf3 runs search on every query three times, as the latency
// table does, and returns each query's fastest time, sorted.
func fastestOf3(queries []string, search func(string)) []time.Duration {
	lat := make([]time.Duration, len(queries))
	for pass := range 3 {
		for i, q := range queries {
			t0 := time.Now()
			search(q)
			if d := time.Since(t0); pass == 0 || d < lat[i] {
				lat[i] = d
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat
}
