package mcp

import (
	"os"
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
// The code and constants start-up and the replay touched go too.
func releaseOpenGarbage() {
	debug.FreeOSMemory()
	embed.PageOutCode()
}
