//go:build unix

package devsync

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// benchLog writes a log of n operations from a second device into dir:
// 70% stores, then tags, importance, supersede and forget ops on them.
func benchLog(b *testing.B, dir string, keys *folderKeys, n int) {
	b.Helper()
	dev, _ := randomID()
	if err := writeDevice(dir, keys, &Device{ID: dev, Name: "bench", Joined: time.Now()}); err != nil {
		b.Fatal(err)
	}
	o := &ownLog{dir: dir, device: dev, k: keys}
	stores := n * 7 / 10
	ids := make([][16]byte, stores)
	ops := make([]Op, 0, n)
	c := Clock{Wall: uint64(time.Now().UnixMilli())}
	next := func() Clock { c.Logical++; return c }
	for i := range stores {
		ids[i], _ = randomID()
		r := &vault.Record{Text: fmt.Sprintf("benchmark memory %d about service %d on port %d", i, i%97, 1000+i),
			Source: "bench", Namespace: "main", Kind: vault.KindFact, Discovered: "2026-12-01",
			Created: time.Now(), Importance: 0.5, Tags: []string{"bench"}}
		ops = append(ops, Op{Kind: OpStore, Device: dev, Clock: next(), Target: ids[i], Payload: vault.SyncRecordBody(r, false)})
	}
	for i := 0; len(ops) < n; i++ {
		id := ids[i%stores]
		switch i % 4 {
		case 0:
			ops = append(ops, Op{Kind: OpTags, Device: dev, Clock: next(), Target: id, Payload: encodeTags([]string{"bench", "retagged"})})
		case 1:
			ops = append(ops, Op{Kind: OpImportance, Device: dev, Clock: next(), Target: id, Payload: encodeF64(0.8)})
		case 2:
			by := ids[(i+1)%stores]
			ops = append(ops, Op{Kind: OpSupersede, Device: dev, Clock: next(), Target: id, Payload: by[:]})
		case 3:
			ops = append(ops, Op{Kind: OpForget, Device: dev, Clock: next(), Target: id})
		}
	}
	if err := o.append(ops); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMerge10k merges 10,000 operations that arrived from another
// device into a vault: read and open the log, fold, write the vault batch
// (one fsync), index. Target: ≤ 1 s per merge on the 2-core machine.
func BenchmarkMerge10k(b *testing.B) {
	const n = 10000
	clearEnv(b)
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		folder := filepath.Join(b.TempDir(), "sync")
		d := newDevice(b, "b", folder, true)
		benchLog(b, folder, d.s.keys, n)
		b.StartTimer()
		before := cpuTime()
		rep, err := d.s.Merge()
		cpu += cpuTime() - before
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Written < n/2 {
			b.Fatalf("merge wrote %d items, want most of the %d stores", rep.Written, n*7/10)
		}
		d.close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n), "ops/merge")
	// CPU time is what the merge costs whatever else the machine runs;
	// ns/op is the wall time, which a loaded machine stretches.
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/merge")
}

// cpuTime is this process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
