package vaultfmt

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// benchBody is a typical memory: one claim with its provenance, ~300 bytes.
var benchBody = []byte(fmt.Sprintf("%-300s", "The staging database moved to db-stage-2.internal on port 5433; the old host is read-only until the end of the quarter. [ops-handbook, 2026-01-02]"))

// reportPercentiles adds p50 and p95 of the samples as metrics.
func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.95), "p95-µs")
}

// BenchmarkAppend: one ~300-byte item per Append, sealed and fsynced
// (the latency of one store, the embedding aside).
func BenchmarkAppend(b *testing.B) {
	_, v, _ := newTestVault(b)
	samples := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := Change{Op: OpPut, Item: Item{ID: testID(i), Kind: 1, Body: benchBody}}
		t0 := time.Now()
		if err := v.Append([]Change{c}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
		i++
	}
	reportPercentiles(b, samples)
}

// BenchmarkSealFrame: the CPU part of an append (item key, two seals,
// framing), without the write and the fsync.
func BenchmarkSealFrame(b *testing.B) {
	_, v, _ := newTestVault(b)
	c := []Change{{Op: OpPut, Item: Item{ID: testID(1), Kind: 1, Body: benchBody}}}
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := v.sealJournal(c); err != nil {
			b.Fatal(err)
		}
	}
}

// vaultOfN builds a vault of n ~300-byte items (appended in batches of
// 1,000, one fsync each), compacted unless journal is set.
func vaultOfN(b *testing.B, n int, journal bool) (string, []byte) {
	b.Helper()
	path := filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d.vault", n))
	v, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: fastKDF}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	batch := make([]Change, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, Change{Op: OpPut, Item: Item{ID: testID(i), Kind: 1, Body: benchBody}})
		if len(batch) == cap(batch) || i == n-1 {
			if err := v.Append(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if !journal {
		if err := v.Compact(); err != nil {
			b.Fatal(err)
		}
	}
	return path, v.MasterKey()
}

// BenchmarkOpen20k: open a compacted 20,000-item vault with the master key
// (an unlock session: no Argon2id), replaying every item into a handler.
func BenchmarkOpen20k(b *testing.B) { benchOpen(b, 20000, false) }

// BenchmarkOpen20kJournal: the same 20,000 items, never compacted.
func BenchmarkOpen20kJournal(b *testing.B) { benchOpen(b, 20000, true) }

func benchOpen(b *testing.B, n int, journal bool) {
	path, key := vaultOfN(b, n, journal)
	b.ReportAllocs()
	for b.Loop() {
		c := newCollector()
		v, err := Open(path, Unlock{MasterKey: key}, c)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.items) != n {
			b.Fatalf("%d items", len(c.items))
		}
		v.Close()
	}
}

// BenchmarkCompact20k: rewrite a 20,000-item vault (tmp, fsync, rename,
// directory fsync).
func BenchmarkCompact20k(b *testing.B) {
	path, key := vaultOfN(b, 20000, false)
	v, err := Open(path, Unlock{MasterKey: key}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	b.SetBytes(v.Stats().FileBytes)
	for b.Loop() {
		if err := v.Compact(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnlockDefaultKDF: Argon2id at the default parameters, the cost
// of a passphrase unlock.
func BenchmarkUnlockDefaultKDF(b *testing.B) {
	s := slot{kind: SlotPassphrase, kdf: DefaultKDF}
	for b.Loop() {
		wipe(slotKEK(s.kind, s.kdf, s.salt[:], testPass, nil))
	}
}
