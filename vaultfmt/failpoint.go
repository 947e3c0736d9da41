package vaultfmt

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Failpoint names: the places where a write can fail half-way. Tests set
// them with [SetFailpoint] to prove that a failed write leaves the file as
// it was.
const (
	FailAppendMidFrame      = "append-mid-frame"      // half of the new frames written, then an error (as ENOSPC would)
	FailAppendBeforeSync    = "append-before-fsync"   // all written, the fsync fails
	FailAppendTear          = "append-tear"           // set to a *Tear: the process "dies" after writing part of an append
	FailCompactMidWrite     = "compact-mid-write"     // the tmp file half written
	FailCompactBeforeRename = "compact-before-rename" // tmp file complete and synced, not yet renamed
	FailCompactRename       = "compact-rename"        // the rename over the vault fails
)

// Tear is the error to set at [FailAppendTear]: the append writes its
// first Frames frames and Bytes bytes of the next one, syncs them, and stops
// without undoing anything, as a process killed at that moment would. The
// vault then refuses further use, like a dead process.
type Tear struct {
	Frames int
	Bytes  int64
}

func (t *Tear) Error() string {
	return fmt.Sprintf("simulated crash after %d frames and %d bytes of an append", t.Frames, t.Bytes)
}

var (
	failMu     sync.Mutex
	failErrs   = map[string]error{}
	failActive atomic.Int32
)

// SetFailpoint makes the named failpoint return err; a nil err clears it.
// It is meant for tests, of this package and of its callers.
func SetFailpoint(name string, err error) {
	failMu.Lock()
	defer failMu.Unlock()
	if err == nil {
		delete(failErrs, name)
	} else {
		failErrs[name] = err
	}
	failActive.Store(int32(len(failErrs)))
}

// failpoint returns the error set for name, or nil; it costs one atomic
// load when no failpoint is set.
func failpoint(name string) error {
	if failActive.Load() == 0 {
		return nil
	}
	failMu.Lock()
	defer failMu.Unlock()
	return failErrs[name]
}
