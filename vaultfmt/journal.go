package vaultfmt

import (
	"errors"
	"fmt"
	"os"
)

// Append catches up with other writers (feeding their changes to the
// handler), then appends one sealed frame per change and fsyncs once. It
// returns only after the fsync; on error nothing was acknowledged and the
// file is as it was. Each OpPut item gets a fresh per-item key. The
// handler is not given these changes: the caller applies them itself.
func (v *Vault) Append(changes []Change) error {
	if err := v.writable(); err != nil {
		return err
	}
	if err := checkChanges(changes); err != nil || len(changes) == 0 {
		return err
	}
	return v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			return err
		}
		return v.appendLocked(changes)
	})
}

// Update is Append for changes that depend on the vault's contents: under
// the exclusive writer lock it catches up with other writers (feeding the
// handler), then calls build, which sees the up-to-date state, and appends
// what it returns with one fsync. No other writer can slip in between, so
// sequence numbers and chained entries computed by build never collide.
// Nothing is written when build fails or returns no changes.
func (v *Vault) Update(build func() ([]Change, error)) error {
	if err := v.writable(); err != nil {
		return err
	}
	return v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			return err
		}
		changes, err := build()
		if err != nil || len(changes) == 0 {
			return err
		}
		if err := checkChanges(changes); err != nil {
			return err
		}
		return v.appendLocked(changes)
	})
}

// Refresh feeds the handler whatever other processes wrote since the last
// look. It is cheap when nothing changed (one stat).
func (v *Vault) Refresh() error {
	if err := v.usable(); err != nil {
		return err
	}
	fi, err := os.Stat(v.path)
	if err != nil {
		return fmt.Errorf("vaultfmt: %w", err)
	}
	// With a torn tail pending, the same size no longer proves nothing
	// changed: a writer may have cut the tail and appended as many bytes.
	if os.SameFile(fi, v.st.fi) && fi.Size() == v.st.seenSize && v.st.seenSize == v.st.end {
		return nil
	}
	return v.withLock(lockShared, func() error { return v.catchUp(false) })
}

// checkChanges refuses what could not be stored or replayed.
func checkChanges(changes []Change) error {
	for i, c := range changes {
		switch {
		case c.Op != OpPut && c.Op != OpDelete:
			return fmt.Errorf("vaultfmt: change %d: unknown op %d", i, c.Op)
		case c.Op == OpPut && len(c.Item.Body) > MaxItemBytes:
			return fmt.Errorf("vaultfmt: change %d: item body is %d bytes, at most %d", i, len(c.Item.Body), MaxItemBytes)
		}
	}
	return nil
}

// catchUp brings the vault level with the file under the lock: a replaced
// file (another process compacted) is reloaded from the start with a
// handler Reset; new frames at the end are applied. Holding the exclusive
// lock it also truncates a torn tail, which can then only be a dead
// writer's, before anything is appended after it.
func (v *Vault) catchUp(exclusive bool) error {
	fi, err := os.Stat(v.path)
	if err != nil {
		return fmt.Errorf("vaultfmt: %w", err)
	}
	if !os.SameFile(fi, v.st.fi) {
		return v.reload()
	}
	size := fi.Size()
	switch {
	case size < v.st.end:
		return corruptf("file", size, -1, "file shrank to %d bytes, below the %d bytes already read", size, v.st.end)
	case size == v.st.end:
		v.st.seenSize = size
		return nil
	}
	buf := make([]byte, size-v.st.end)
	if _, err := v.st.f.ReadAt(buf, v.st.end); err != nil {
		return fmt.Errorf("vaultfmt: read journal: %w", err)
	}
	v.st.seenSize = size
	if err := v.replayJournal(&v.st, buf, v.st.end, nil); err != nil {
		return err
	}
	if exclusive && v.st.end < size {
		return v.truncateTail()
	}
	return nil
}

// truncateTail cuts a torn tail away so the next frame follows the last
// good one.
func (v *Vault) truncateTail() error {
	if err := v.st.f.Truncate(v.st.end); err != nil {
		return fmt.Errorf("vaultfmt: truncate torn tail: %w", err)
	}
	if err := fdatasync(v.st.f); err != nil {
		return fmt.Errorf("vaultfmt: truncate torn tail: %w", err)
	}
	v.st.seenSize = v.st.end
	return nil
}

// reload switches to the file now at v.path, which another process wrote
// by compaction: Reset, then a full replay. A failure leaves the handler
// half-filled, so the vault refuses further use until reopened.
func (v *Vault) reload() error {
	st, err := v.load(nil)
	if err != nil {
		v.failed = fmt.Errorf("vaultfmt: reload after another process rewrote the vault failed (reopen it): %w", err)
		return v.failed
	}
	old := v.st.f
	v.st = *st
	old.Close()
	return nil
}

// appendLocked seals the changes as journal frames, writes them after the
// last good frame and fsyncs. On any failure it truncates the file back
// so no partial frame is left, and nothing in v changes.
func (v *Vault) appendLocked(changes []Change) error {
	buf, offs, err := v.sealJournal(changes)
	if err != nil {
		return err
	}
	if err := v.writeTail(buf, offs); err != nil {
		return err
	}
	for i, c := range changes {
		if c.Op == OpPut {
			v.st.live.logPut(c.Item.ID, loc{off: offs[i], kind: c.Item.Kind})
		} else {
			v.st.live.logDelete(c.Item.ID)
		}
	}
	for i := range offs {
		end := int64(len(buf)) // frame i ends where frame i+1 begins
		if i+1 < len(offs) {
			end = offs[i+1] - v.st.end
		}
		v.st.extendChain(buf[:end])
	}
	v.st.seq += uint64(len(changes))
	v.st.journalFrames += len(changes)
	v.st.end += int64(len(buf))
	v.st.seenSize = v.st.end
	return nil
}

// sealJournal builds one journal frame per change, numbered from the next
// sequence number, and returns the bytes and each frame's file offset.
// More than one change makes a batch: every frame but the last is marked
// "more follows" and the last carries the commit, so a reader applies all
// of them or, when the file ends before the commit, none (FORMAT.md §2.6).
func (v *Vault) sealJournal(changes []Change) ([]byte, []int64, error) {
	var buf []byte
	offs := make([]int64, len(changes))
	for i, c := range changes {
		var mark batchMark
		switch {
		case len(changes) == 1:
		case i < len(changes)-1:
			mark.op = opBatchMore
		default:
			mark = batchMark{op: opBatchCommit, frames: uint32(len(changes))}
		}
		e, err := sealItem(v.k, v.st.hdr.vaultID, v.rnd, c)
		if err != nil {
			return nil, nil, err
		}
		aad := aadFrame(roleJournal, v.st.hdr.vaultID, v.st.hdr.epoch, v.st.seq+uint64(i))
		sealed, err := seal(nil, v.k.frame[:], v.rnd, frameEntries([]entry{e}, mark), aad)
		if err != nil {
			return nil, nil, err
		}
		offs[i] = v.st.end + int64(len(buf))
		buf = appendFrame(buf, sealed)
	}
	return buf, offs, nil
}

// writeTail writes buf at the end of the good frames and fsyncs; on
// failure it truncates back to where it began. offs are the frames' file
// offsets (for the tear failpoint).
func (v *Vault) writeTail(buf []byte, offs []int64) error {
	f, at := v.st.f, v.st.end
	if err := v.tear(buf, offs); err != nil {
		return err
	}
	err := failpoint(FailAppendMidFrame)
	if err != nil {
		_, _ = f.WriteAt(buf[:len(buf)/2], at)
	} else if _, err = f.WriteAt(buf, at); err == nil {
		if err = failpoint(FailAppendBeforeSync); err == nil {
			err = fdatasync(f)
		}
	}
	if err == nil {
		return nil
	}
	if terr := f.Truncate(at); terr != nil {
		return fmt.Errorf("vaultfmt: append failed (%w) and so did undoing it: %v", err, terr)
	}
	if serr := fdatasync(f); serr != nil {
		return fmt.Errorf("vaultfmt: append failed (%w) and so did syncing the undo: %v", err, serr)
	}
	return fmt.Errorf("vaultfmt: append failed, the file is as it was: %w", err)
}

// tear implements [FailAppendTear]: it writes what a process killed in
// the middle of this append leaves behind and then behaves as dead (the
// vault refuses further use), so a test can reopen the file and see what
// a reader makes of it.
func (v *Vault) tear(buf []byte, offs []int64) error {
	err := failpoint(FailAppendTear)
	var t *Tear
	if !errors.As(err, &t) {
		return nil
	}
	cut := int64(len(buf))
	if t.Frames < len(offs) {
		cut = offs[t.Frames] - v.st.end
	}
	cut = min(cut+t.Bytes, int64(len(buf)))
	if _, werr := v.st.f.WriteAt(buf[:cut], v.st.end); werr != nil {
		return werr
	}
	if serr := fdatasync(v.st.f); serr != nil {
		return serr
	}
	v.failed = fmt.Errorf("vaultfmt: %w", err)
	return v.failed
}

// NeedsCompaction reports whether the journal has grown past the threshold:
// as many bytes as the payload, and at least compactMinJournal. Compacting
// when the journal doubles the file keeps the rewriting cost amortised
// constant per byte written, and bounds what an open replays frame by frame
// to the size of the snapshot; the floor keeps a small vault from being
// rewritten every few writes when its journal replays in microseconds.
func (v *Vault) NeedsCompaction() bool {
	if v.st.hdr == nil {
		return false
	}
	j := v.st.end - v.st.journalStart
	return j >= compactMinJournal && j >= int64(v.st.hdr.payloadLen)
}

// compactMinJournal is the journal size below which compaction is never
// needed.
const compactMinJournal = 1 << 20
