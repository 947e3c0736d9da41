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
		{16 << 20, 50}, // 8 MiB floor on 16 MiB
		{100 << 20, 8}, // 100,000 memories: the floor
		{128 << 20, 6}, // live/16 = 8 MiB = the floor
		{768 << 20, 6}, // 766,811 memories: live/16 = 48 MiB
		{64 << 30, 6},  // live/16 wins however large
		{math.MaxUint32, 6},
	} {
		if got := serverGCPercent(c.live); got != c.want {
			t.Errorf("serverGCPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
		if c.live > 0 && c.want < 100 {
			if h := serverHeadroom(c.live); h < serverHeadroomFloor || h < c.live/16 {
				t.Errorf("serverHeadroom(%d) = %d: below the floor or live/16", c.live, h)
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
	after := debug.SetMemoryLimit(-1)
	if after < before+64<<20 {
		t.Errorf("after 64 MiB more live heap the limit went from %d to %d", before, after)
	}
	// A live heap that shrinks again (a search's scratch dropped) leaves
	// the limit until the next settle: one moved down with it bound below
	// the next search's heap goal and collected every few milliseconds.
	runtime.KeepAlive(grown)
	clear(grown[32:])
	grown = grown[:32]
	runtime.GC()
	FollowServerHeap()
	if again := debug.SetMemoryLimit(-1); again != after {
		t.Errorf("the limit moved from %d to %d when the live heap shrank", after, again)
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
