//go:build unix

package vault

import (
	"os"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"
)

// The measuring tools of #29 (TestOpenProfile, TestStoreProfile,
// TestImportProfile) share these.

// cpuTime is the process's user and system CPU time so far: under a
// loaded machine it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuProfile starts a CPU profile written to path and returns what stops
// it; with no path it starts nothing.
func cpuProfile(t *testing.T, path string) (stop func()) {
	t.Helper()
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// heapProfile writes the heap profile to path.
func heapProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
}
