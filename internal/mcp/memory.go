package mcp

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/compartment/compartment/embed"
)

// serverGCPercent is the server's GOGC. A server is a long-lived process
// whose live heap is mostly the vault's indexes (about 50 MB at 20,000
// memories), and Go's default of 100 lets the heap grow to twice that
// between collections. A search allocates little, so collecting at 25%
// growth costs a few percent of CPU and keeps the resident set near the
// live heap. GOGC in the environment still wins.
const serverGCPercent = 25

// tuneMemory sets the server's GOGC and keeps the bundled model's
// resident pages to the rows in use (embed.KeepStaticModelSmall).
func tuneMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
	embed.KeepStaticModelSmall()
}

// releaseOpenGarbage hands the memory an open used and no longer needs
// (the decrypted file, decoded frames, index build scratch) back to the
// OS at once, instead of letting the scavenger return it over minutes:
// opening a 20,000-memory vault peaks at about twice its live heap.
func releaseOpenGarbage() {
	debug.FreeOSMemory()
	setMemoryLimit()
}

// setMemoryLimit sets a soft limit (debug.SetMemoryLimit) just above what
// GOGC lets the heap grow to from the live heap measured now, so the
// runtime hands freed pages back to the OS promptly instead of keeping a
// high-water mark resident. It is a soft limit: a heap that outgrows it
// (many stores since the open) only makes collection more frequent, and
// it is measured again at every open, sweep and write. GOMEMLIMIT in the
// environment still wins.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	inUse := m.Sys - m.HeapReleased // what the runtime holds now, live heap included
	debug.SetMemoryLimit(int64(inUse + m.HeapAlloc*serverGCPercent/100 + memoryLimitSlack))
}

// memoryLimitSlack is room above the heap goal for stacks, buffers and the
// scratch of concurrent calls.
const memoryLimitSlack = 6 << 20
