package mcp

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestMemoryLimitFollowsTheHeap checks the soft limit sits above the heap
// GOGC allows, and moves up when the live heap grows.
func TestMemoryLimitFollowsTheHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	heapGoal := func() int64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc) * (100 + serverGCPercent) / 100
	}
	setMemoryLimit()
	before := debug.SetMemoryLimit(-1)
	if goal := heapGoal(); before < goal {
		t.Fatalf("limit %d below the heap goal %d", before, goal)
	}
	grown := make([][]byte, 64)
	for i := range grown {
		grown[i] = make([]byte, 1<<20) // 64 MB more live heap
	}
	setMemoryLimit()
	after := debug.SetMemoryLimit(-1)
	if after < before+64<<20 || after < heapGoal() {
		t.Errorf("after 64 MB more live heap the limit went from %d to %d", before, after)
	}
	runtime.KeepAlive(grown)
}
