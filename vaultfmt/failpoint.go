package vaultfmt

import "fmt"

// Failpoint names: the places where a write can fail half-way. Tests set
// them with SetFailpoint (built only with the failpoints build tag, as
// `make test` builds the tests: failpoint_on.go) to prove that a failed
// write leaves the file as it was. A binary built without the tag has no
// way to set one, and failpoint (failpoint_off.go) is a constant nil.
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
