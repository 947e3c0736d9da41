package vault

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// The long-lived server's memory policy (issue #29: its resident set at
// 100,000 memories ≤ 120 MB, at 1,000,000 ≤ 700 MB).
//
// A server's live heap is almost all the vault's indexes, built once by
// the open and then grown by writes and by the scratch searches keep (the
// literal index's: 8 MB at 100,000 memories, 62 MB at 766,811). A search
// through MCP leaves about 0.2 MB of garbage at 100,000 memories, and
// holds tens of MB at once at 766,811 (the live heap a collection finds
// moves by 30 MB there from one search to the next). Go's default lets
// the heap reach twice the live heap between collections; the GOGC of 25
// this server ran at let it grow by a quarter, 25 MB at 100,000 memories
// and 170 MB at 766,811, all of it resident. So the policy is:
//
//   - After an open, and after each compaction the server's vault commits,
//     [SettleServerMemory] collects twice (the second empties the pools
//     the open's frames were decrypted into, kept one cycle by sync.Pool:
//     3 MB at 100,000 memories), hands every free page back to the OS, and
//     sets GOGC so the heap may grow by [serverHeadroom] of the live heap
//     just measured: a fixed 8 MiB floor (so a small vault does not
//     collect at every search) or a sixteenth of the live heap, whichever
//     is more. At 100,000 memories that is 8 MiB, about forty searches'
//     garbage; at 766,811, 48 MiB, more than one search holds at once.
//     Less was measured and rejected: 4 MiB or a thirty-second doubled
//     the collections at 100,000 memories (0.5-0.8 ms of collector CPU per
//     search against 0.15-0.2) and, at 766,811, with a soft limit one
//     headroom up, collected 111 times in 600 searches (11.5 s of CPU;
//     the bench's MCP p95 17 -> 29 ms) where this policy collects 3-5
//     times; a thirty-second with this limit still collected 26-27 times
//     there (client p95 44-94 ms against 17-19).
//   - A soft memory limit (debug.SetMemoryLimit) two headrooms above the
//     live heap, plus the runtime's own overhead measured at the settle,
//     so freed pages go back to the OS promptly instead of staying as a
//     high-water mark. After every collection (and after writes,
//     [FollowServerHeap]) it is raised to follow a live heap that grew,
//     never lowered until the next settle.
//
// GOGC or GOMEMLIMIT in the environment means the user chose the policy:
// then neither setting is touched (the free pages are still handed back
// after an open, which changes no setting).

// serverHeadroomFloor and serverHeadroomShift make the growth GOGC allows
// the server's heap: max(floor, live >> shift).
const (
	serverHeadroomFloor = 8 << 20
	serverHeadroomShift = 4
)

// serverLimitSlack is room above the heap goal, inside the soft limit, for
// goroutine stacks, buffers and concurrent calls' scratch.
const serverLimitSlack = 4 << 20

// serverMemory is set once the process has taken the server's policy
// ([TuneServerMemory]): compactions then settle memory after they commit.
var serverMemory atomic.Bool

// serverHeadroom is how far GOGC lets a live heap of live bytes grow.
func serverHeadroom(live uint64) uint64 {
	return max(serverHeadroomFloor, live>>serverHeadroomShift)
}

// serverGCPercent is the GOGC that gives a live heap of live bytes
// serverHeadroom of growth, at least 1.
func serverGCPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	p := serverHeadroom(live) * 100 / live
	return int(min(max(p, 1), 100))
}

// userMemoryPolicy reports whether GOGC or GOMEMLIMIT is set in the
// environment, in which case the server leaves both settings alone.
func userMemoryPolicy() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// TuneServerMemory makes this process follow the server's memory policy:
// called once by a long-lived server before it opens a vault.
func TuneServerMemory() {
	serverMemory.Store(true)
	if !userMemoryPolicy() {
		// Until the first settle measures a live heap, the server's old
		// default: a fresh process holds next to nothing.
		debug.SetGCPercent(25)
	}
}

// SettleServerMemory hands the memory an open (or a compaction) used and
// no longer needs back to the OS, then sets GOGC and the soft memory limit
// from the live heap it finds (see the policy above).
func SettleServerMemory() {
	runtime.GC()         // the pools' current contents move to their victim caches
	debug.FreeOSMemory() // which this collection drops; then every free page goes back
	if userMemoryPolicy() {
		return
	}
	m := heapMetrics()
	serverOverhead.Store(m.held - min(m.live, m.held))
	debug.SetGCPercent(serverGCPercent(m.live))
	debug.SetMemoryLimit(int64(min(serverLimit(m.live, serverOverhead.Load()), math.MaxInt64)))
	followCollections.Do(armCollectionHook)
}

// followCollections arms the hook that moves the soft limit after every
// collection. A search can grow the live heap too (the literal index keeps
// its scratch, about 8 MB at 100,000 memories, after the first searches):
// a limit left where the open's live heap put it then sits below the new
// live heap, and the runtime collects at nearly every allocation (480
// collections in 600 searches, measured, against 15).
var followCollections sync.Once

// collectionHook is an object whose finalizer runs after the collection
// that finds it unreachable, and arms the next one.
type collectionHook struct{ _ *byte }

func armCollectionHook() {
	runtime.SetFinalizer(&collectionHook{}, func(*collectionHook) {
		if !userMemoryPolicy() && serverOverhead.Load() != 0 {
			setServerLimit()
		}
		armCollectionHook()
	})
}

// serverOverhead is what the runtime held beyond the live heap at the last
// settle, when it held the least it can: metadata, stacks, the partly used
// spans of the live heap.
var serverOverhead atomic.Uint64

// FollowServerHeap moves the soft memory limit after a write, a sweep or a
// retag pass may have grown the live heap. It does not collect, and does
// nothing before the first settle.
func FollowServerHeap() {
	if userMemoryPolicy() || serverOverhead.Load() == 0 {
		return
	}
	setServerLimit()
}

// setServerLimit raises the soft limit to the live heap the last
// collection found, plus the headroom GOGC allows, the overhead measured
// at the last settle and serverLimitSlack. It follows the live heap, not
// what the runtime holds now, so garbage between collections does not
// raise it; and it only raises it until the next settle, because the live
// heap a collection finds moves by a few MB from one search to the next
// (the scratch a search keeps or drops): a limit moved down with it
// bound below the next search's goal, and the runtime collected every
// 15 ms (66 collections in 930 searches, against 26).
func setServerLimit() {
	limit := serverLimit(heapMetrics().live, serverOverhead.Load())
	if prev := debug.SetMemoryLimit(-1); uint64(prev) < limit {
		debug.SetMemoryLimit(int64(min(limit, math.MaxInt64)))
	}
}

// serverLimit is the soft memory limit for a live heap of live bytes and
// a runtime overhead beyond it of overhead bytes.
func serverLimit(live, overhead uint64) uint64 {
	return live + 2*serverHeadroom(live) + overhead + serverLimitSlack
}

type heapSample struct {
	live uint64 // the heap the last collection found live
	held uint64 // what the runtime holds from the OS, less what it released
}

func heapMetrics() heapSample {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	var v [3]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return heapSample{live: v[0], held: v[1] - min(v[2], v[1])}
}
