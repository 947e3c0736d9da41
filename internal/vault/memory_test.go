package vault

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestServerGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, 100}, // the floor is more than the heap: capped at Go's default
		{8 << 20, 50},  // 4 MiB floor on 8 MiB
		{100 << 20, 4}, // 100,000 memories: the floor
		{128 << 20, 3}, // live/32 = 4 MiB = the floor
		{640 << 20, 3}, // 1,000,000 memories: live/32 = 20 MiB
		{64 << 30, 3},  // live/32 wins however large
		{math.MaxUint32, 3},
	} {
		if got := serverGCPercent(c.live); got != c.want {
			t.Errorf("serverGCPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
		if c.live > 0 && c.want < 100 {
			if h := serverHeadroom(c.live); h < serverHeadroomFloor || h < c.live/32 {
				t.Errorf("serverHeadroom(%d) = %d: below the floor or live/32", c.live, h)
			}
		}
	}
}

// restoreMemorySettings puts GOGC, the memory limit and the policy's state
// back after a test that settles.
func restoreMemorySettings(t *testing.T) {
	gc, limit, on, over := debug.SetGCPercent(100), debug.SetMemoryLimit(-1), serverMemory.Load(), serverOverhead.Load()
	debug.SetGCPercent(gc)
	t.Cleanup(func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
		serverMemory.Store(on)
		serverOverhead.Store(over)
	})
}

// TestSettleServerMemoryFollowsTheHeap checks the settle sets GOGC from
// the live heap it measures, a soft limit above the heap goal, and that
// the limit moves up with the live heap after writes.
func TestSettleServerMemoryFollowsTheHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restoreMemorySettings(t)
	grown := make([][]byte, 0, 96)
	for range 32 {
		grown = append(grown, make([]byte, 1<<20))
	}
	SettleServerMemory()
	live := heapMetrics().live
	if live < 32<<20 {
		t.Fatalf("live heap %d after 32 MiB kept", live)
	}
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	if want := serverGCPercent(live); gc != want {
		t.Errorf("GOGC %d after the settle, want %d for a live heap of %d", gc, want, live)
	}
	before := debug.SetMemoryLimit(-1)
	if goal := live + live*uint64(gc)/100; uint64(before) < goal {
		t.Fatalf("limit %d below the heap goal %d", before, goal)
	}
	for range 64 {
		grown = append(grown, make([]byte, 1<<20)) // 64 MiB more live heap
	}
	runtime.GC()
	FollowServerHeap()
	if after := debug.SetMemoryLimit(-1); after < before+64<<20 {
		t.Errorf("after 64 MiB more live heap the limit went from %d to %d", before, after)
	}
	runtime.KeepAlive(grown)
}

// TestSettleServerMemoryKeepsTheUsersPolicy checks GOGC or GOMEMLIMIT in
// the environment leaves both settings as they were.
func TestSettleServerMemoryKeepsTheUsersPolicy(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}[env])
			restoreMemorySettings(t)
			debug.SetGCPercent(150)
			debug.SetMemoryLimit(1 << 30)
			TuneServerMemory()
			SettleServerMemory()
			FollowServerHeap()
			if gc := debug.SetGCPercent(150); gc != 150 {
				t.Errorf("GOGC changed to %d", gc)
			}
			if limit := debug.SetMemoryLimit(-1); limit != 1<<30 {
				t.Errorf("memory limit changed to %d", limit)
			}
		})
	}
}
