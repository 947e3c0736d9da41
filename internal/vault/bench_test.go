package vault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/vaultfmt"
)

// Benchmarks against a real vault file with the bundled static model: the
// numbers DESIGN.md holds us to (store, open, hybrid search at 20k).

var benchWords = strings.Fields(`account address airport apartment appointment backup birthday
budget calendar camera client concert contract database deadline dentist deploy doctor email
flight garden guitar holiday hotel invoice kitchen laptop meeting migration mortgage office
password payment postgres printer project recipe release restaurant router salary server
staging subscription ticket train vacation vendor wedding weekend python kubernetes airtable`)

func benchClaim(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Note %d:", i)
	for j := 0; j < 8+r.IntN(10); j++ {
		b.WriteString(" ")
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	return b.String()
}

var (
	benchOnce  sync.Once
	benchPath  string
	benchError error
)

// openBenchVault opens the shared benchmark vault with the bundled model.
func openBenchVault(b *testing.B) *Vault {
	v, err := Open(benchVault(b, benchN()), Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: staticEncoder(b)})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func staticEncoder(tb testing.TB) embed.Encoder {
	enc, err := embed.OpenStatic()
	if err != nil {
		tb.Skipf("static model: %v", err)
	}
	return enc
}

// benchVault builds (once per run) a vault of n records in a temp dir.
func benchVault(b *testing.B, n int) string {
	benchOnce.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			benchError = err
			return
		}
		benchPath = filepath.Join(dir, "bench.vault")
		enc := staticEncoder(b)
		v, err := Create(benchPath, Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: testKDF})
		if err != nil {
			benchError = err
			return
		}
		defer v.Close()
		r := rand.New(rand.NewPCG(1, 2))
		for start := 0; start < n; start += 500 {
			var lines strings.Builder
			for i := start; i < min(start+500, n); i++ {
				fmt.Fprintf(&lines, "{\"text\": %q, \"source\": \"bench\"}\n", benchClaim(r, i))
			}
			if _, err := v.Import(strings.NewReader(lines.String()), "bench", nil); err != nil {
				benchError = err
				return
			}
		}
		benchError = v.Flush()
	})
	if benchError != nil {
		b.Fatal(benchError)
	}
	return benchPath
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(p float64) float64 {
		return float64(samples[int(p*float64(len(samples)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50_ms")
	b.ReportMetric(at(0.95), "p95_ms")
}

// BenchmarkOpen20k opens the vault as every command does: the engine
// restored from the index segment its last compaction wrote.
func BenchmarkOpen20k(b *testing.B) { benchOpen(b) }

// BenchmarkOpen20kRebuild is the same open with segments ignored: the
// engine rebuilt from the records, as before segments (the ratio of the
// two is what the segment buys).
func BenchmarkOpen20kRebuild(b *testing.B) {
	useSegments = false
	defer func() { useSegments = true }()
	benchOpen(b)
}

func benchOpen(b *testing.B) {
	v := openBenchVault(b)
	path, enc := v.Path(), v.enc
	key := v.File().MasterKey()
	v.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := Open(path, Options{Unlock: vaultfmt.Unlock{MasterKey: key}, Encoder: enc})
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
}

func BenchmarkSearchHybrid20k(b *testing.B) {
	v := openBenchVault(b)
	defer v.Close()
	queries := []string{"when is the dentist appointment", "staging server password", "postgres migration deadline",
		"wedding hotel budget", "which router is in the office", "flight to the concert"}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := v.Search(SearchRequest{Query: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	reportPercentiles(b, samples)
}

func BenchmarkStore(b *testing.B) {
	dir := b.TempDir()
	enc := staticEncoder(b)
	v, err := Create(filepath.Join(dir, "store.vault"), Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: testKDF})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	r := rand.New(rand.NewPCG(3, 4))
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := benchClaim(r, i)
		start := time.Now()
		if _, err := v.Store(StoreRequest{Text: text, Source: "bench"}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	reportPercentiles(b, samples)
}

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "compartment-bench-") }

// benchN is the vault size of the 20k benchmarks (COMPARTMENT_BENCH_N
// changes it, e.g. to compare with the exact/HNSW threshold).
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("COMPARTMENT_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// BenchmarkStore20k stores into a vault that already holds 20k memories:
// the near-duplicate check runs against all of them.
func BenchmarkStore20k(b *testing.B) {
	v := openBenchVault(b)
	defer v.Close()
	r := rand.New(rand.NewPCG(9, 10))
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := benchClaim(r, 1_000_000+i)
		start := time.Now()
		if _, err := v.Store(StoreRequest{Text: text, Source: "bench"}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	reportPercentiles(b, samples)
}

// BenchmarkSearchDuringRetag measures a search's latency while retag
// passes run back to back on the same handle, as the server runs them in
// the background: how long a search waits behind a pass's lock.
func BenchmarkSearchDuringRetag(b *testing.B) {
	v := openBenchVault(b)
	defer v.Close()
	stop := make(chan struct{})
	passes := make(chan int, 1)
	go func() {
		n := 0
		defer func() { passes <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := v.Retag(RetagOptions{Prune: true}); err != nil {
				b.Error(err)
				return
			}
			n++
		}
	}()
	queries := []string{"when is the dentist appointment", "staging server password", "postgres migration deadline",
		"wedding hotel budget", "which router is in the office", "flight to the concert"}
	samples := make([]time.Duration, 0, b.N)
	time.Sleep(50 * time.Millisecond) // let the first pass start
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := v.Search(SearchRequest{Query: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
		time.Sleep(time.Millisecond) // a search arrives now and then, not back to back
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(<-passes), "retag_passes")
	reportPercentiles(b, samples)
}

// BenchmarkDuringCompaction measures a search's and a store's latency
// while compactions run back to back on the same handle. "locked" is the
// compaction as a write ran it before issue #28's change (v.file.Compact
// under v.mu: everything waits for the whole rewrite); "built" is the one
// a write starts now (compaction.go: snapshot and commit under the lock,
// the build beside it). Each iteration is one search and one store.
func BenchmarkDuringCompaction(b *testing.B) {
	for _, mode := range []string{"locked", "built"} {
		b.Run(mode, func(b *testing.B) {
			v := openBenchVault(b)
			defer v.Close()
			compact := func() error {
				v.mu.Lock()
				defer v.mu.Unlock()
				if mode == "locked" {
					return v.file.Compact()
				}
				return v.compactSoon()
			}
			stop := make(chan struct{})
			runs := make(chan int, 1)
			go func() {
				n := 0
				defer func() { runs <- n }()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := compact(); err != nil {
						b.Error(err)
						return
					}
					if err := v.WaitCompaction(); err != nil {
						b.Error(err)
						return
					}
					n++
				}
			}()
			queries := []string{"when is the dentist appointment", "staging server password", "postgres migration deadline",
				"wedding hotel budget", "which router is in the office", "flight to the concert"}
			r := rand.New(rand.NewPCG(11, 12))
			searches := make([]time.Duration, 0, b.N)
			stores := make([]time.Duration, 0, b.N)
			time.Sleep(50 * time.Millisecond) // let the first compaction start
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := v.Search(SearchRequest{Query: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
				searches = append(searches, time.Since(start))
				start = time.Now()
				if _, err := v.Store(StoreRequest{Text: benchClaim(r, 2_000_000+i), Source: "bench"}); err != nil {
					b.Fatal(err)
				}
				stores = append(stores, time.Since(start))
				time.Sleep(time.Millisecond) // requests arrive now and then, not back to back
			}
			b.StopTimer()
			close(stop)
			b.ReportMetric(float64(<-runs), "compactions")
			reportPercentiles(b, searches)
			sort.Slice(stores, func(i, j int) bool { return stores[i] < stores[j] })
			b.ReportMetric(float64(stores[len(stores)/2].Microseconds())/1000, "store_p50_ms")
			b.ReportMetric(float64(stores[int(0.95*float64(len(stores)-1))].Microseconds())/1000, "store_p95_ms")
		})
	}
}
