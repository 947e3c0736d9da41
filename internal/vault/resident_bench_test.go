package vault

import (
	"runtime"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// BenchmarkResident20k opens the 20k benchmark vault and reports the live
// heap it holds after a collection (heap-MB), then runs hybrid searches.
// Profile where the memory and the time go with
//
//	go test -run '^$' -bench Resident20k -benchtime 2000x -memprofile mem.out -cpuprofile cpu.out ./internal/vault
//	go tool pprof -sample_index=inuse_space mem.out
func BenchmarkResident20k(b *testing.B) {
	path := benchVault(b, benchN())
	enc := staticEncoder(b)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := Open(path, Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	queries := []string{"when is the dentist appointment", "staging server password", "postgres migration deadline",
		"wedding hotel budget", "which router is in the office", "flight to the concert"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.Search(SearchRequest{Query: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heap-MB")
}
