package vaultfmt

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A compaction built outside the writer lock (FORMAT.md §2.7, "Building
// without the lock"). [Vault.Compact] holds the exclusive lock while it
// re-reads, re-authenticates and re-frames every live item, which on a
// large vault is most of a second in which no other process may append
// (and, in the caller, no search or store may run). A Build splits it:
//
//   - [Vault.StartBuild], briefly under the exclusive lock: catch up,
//     take a snapshot (the file's bytes up to the last good frame, which
//     appends never change, and the live map), the handler's derived
//     items, and <vault>.build, locked so one build runs at a time;
//   - [Build.Run], with no lock and without the Vault (other goroutines
//     use it meanwhile): write the new payload into <vault>.build;
//   - [Vault.CommitBuild], briefly under the exclusive lock: catch up, and
//     carry what was appended since the snapshot into the new file as
//     the first journal frames of the new epoch (the same entries, their
//     wrapped keys and sealed bodies unchanged, framed again), write the
//     header, fsync, rename over the vault, fsync the directory.
//
// The result holds exactly the live items a locked compaction at commit
// time would: the payload is the snapshot's, the journal the rest. Where
// it would not be the same, the commit compacts under the lock instead:
// when the appended changes delete an item the new payload holds (its
// content must not be copied into the new file), or when the build
// failed. The new header is the locked compaction's plus a padding
// record (0x0004): its length is fixed when the payload is placed after
// it, before the commit knows how many frames its ancestry record names. When another process compacted meanwhile, the build
// is dropped: the vault is already compacted.
type Build struct {
	k        keys // a copy: the vault's are wiped when it closes
	rnd      io.Reader
	f        *os.File // <vault>.build, locked
	path     string
	im       *image
	old      fileState // the snapshot: hdr, live, journalStart, end, seq
	nh       *header
	hl       int64
	derived  []Item // sealed as Run writes them
	dropKind Kind
	pw       *payloadWriter
	err      error // Run's
}

// UnlockedBuilds says whether [Vault.StartBuild] can build a compaction
// outside the writer lock on this platform.
const UnlockedBuilds = buildsUnlocked

// buildSuffix names the file a build writes beside the vault.
const buildSuffix = ".build"

// StartBuild takes the snapshot a [Build] compacts, under the exclusive
// lock. It returns nil (and no error) when builds outside the lock are
// not available here or another process's build is running; the caller
// then compacts with [Vault.Compact] or later. The caller serialises it
// with its other calls, as every method; the handler's Derive runs here.
func (v *Vault) StartBuild() (*Build, error) {
	if !buildsUnlocked {
		return nil, nil
	}
	if err := v.writable(); err != nil {
		return nil, err
	}
	var b *Build
	err := v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			return err
		}
		path := v.path + buildSuffix
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("vaultfmt: %w", err)
		}
		ok, err := tryLockBuild(f)
		if err != nil || !ok {
			f.Close()
			if err != nil {
				return fmt.Errorf("vaultfmt: lock %s: %w", path, err)
			}
			return nil
		}
		// A stale build (its process died) is overwritten.
		if err := f.Truncate(0); err != nil {
			f.Close()
			return fmt.Errorf("vaultfmt: %w", err)
		}
		nb, err := v.snapshot(f, path)
		if err != nil {
			f.Close()
			os.Remove(path)
			return err
		}
		if nb == nil {
			f.Close()
			os.Remove(path)
		}
		b = nb
		return nil
	})
	return b, err
}

// snapshot fills a Build from the state as it is; the caller holds the
// exclusive lock and has caught up.
func (v *Vault) snapshot(f *os.File, path string) (*Build, error) {
	old := v.st
	im, err := readImage(old.f, old.end)
	if err != nil {
		return nil, err
	}
	oldLive := old.live.items()
	live := make(map[ID]loc, len(oldLive))
	for id, l := range oldLive {
		live[id] = l
	}
	b := &Build{k: *v.k, rnd: v.rnd, f: f, path: path, im: im}
	b.old = fileState{hdr: old.hdr, fi: old.fi, live: liveOf(live), journalStart: old.journalStart, end: old.end, seq: old.seq}
	b.nh = &header{
		version: formatVersion, vaultID: old.hdr.vaultID, created: old.hdr.created,
		epoch: old.hdr.epoch + 1, slots: old.hdr.slots, pin: old.hdr.pin,
		ancestry: v.st.nextAncestry(),
	}
	b.dropKind = v.derivedKindOf(old.hdr)
	b.derived, err = v.derivedItems(b.nh, func(id ID) bool {
		l, ok := live[id]
		return ok && (b.dropKind == 0 || l.kind != b.dropKind)
	}, func() (map[ID]Seal, error) { return v.liveSeals(im) })
	if err != nil {
		im.release()
		return nil, err
	}
	// The header is written last, but the payload is placed after it now,
	// and the ancestry record grows with every frame appended before the
	// commit (16 bytes each, until the epoch keeps its newest 1,024 tags).
	// So the header is given the room the record can grow by, plus a
	// padding record that takes up what the commit does not use.
	grow := 0
	if len(b.nh.ancestry) > 0 {
		grow = tagSize * (maxAncestorTags - len(b.nh.ancestry[0].tags))
	}
	b.nh.padded = true
	b.hl = int64(b.nh.encodedLen() + grow)
	if b.hl > MaxHeaderBytes {
		im.release()
		return nil, nil // only a locked compaction fits
	}
	return b, nil
}

// Run writes the new payload into the build file. It holds no lock and
// does not use the Vault, which other goroutines may use meanwhile
// (b.rnd, the vault's random source, must then be safe for concurrent
// use, as crypto/rand is). An error is kept for [Vault.CommitBuild].
func (b *Build) Run() error {
	b.err = b.run()
	b.im.release()
	return b.err
}

func (b *Build) run() error {
	if _, err := b.f.Seek(b.hl, io.SeekStart); err != nil {
		return fmt.Errorf("vaultfmt: %w", err)
	}
	b.pw = &payloadWriter{w: bufio.NewWriterSize(b.f, 1<<20), k: &b.k, hdr: b.nh, rnd: b.rnd, pos: b.hl, live: map[ID]loc{}}
	if err := sweepLive(&b.k, b.rnd, &b.old, b.im, b.derived, b.dropKind)(b.pw.add); err != nil {
		return err
	}
	return b.pw.finish()
}

// abandon drops the build; with the lock held it also removes the file
// (no other build can be running: this one holds the build lock).
func (b *Build) abandon(locked bool) {
	b.im.release()
	if locked {
		os.Remove(b.path)
		if fi, err := b.f.Stat(); err == nil {
			scrubReplaced(b.f, fi.Size())
		}
	}
	b.f.Close()
	b.k.zero()
}

// CommitBuild finishes b under the exclusive lock (see [Build]). It
// reports whether the vault was compacted: false when the build was
// dropped because another process compacted meanwhile or the vault is
// closed. Changes appended since the snapshot reach the handler as in any
// catch-up. On an error the vault file is as it was, or (as with Compact)
// it was replaced and only the directory sync failed.
func (v *Vault) CommitBuild(b *Build) (bool, error) {
	if err := v.writable(); err != nil {
		b.abandon(false)
		return false, err
	}
	done := false
	err := v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			b.abandon(true)
			return err
		}
		if !os.SameFile(v.st.fi, b.old.fi) {
			// Another compaction replaced the file: nothing to do. It may
			// have been a shred, whose items the build copied: the build
			// file is overwritten as the replaced vault file is.
			b.abandon(true)
			return nil
		}
		done = true
		if b.err == nil {
			ok, err := v.commitLocked(b)
			if ok {
				return err // the build file is the vault now
			}
			if err != nil {
				b.abandon(true)
				return err
			}
		}
		// The build failed, or its result would differ from a locked
		// compaction's: compact under the lock, from the state as it is.
		b.abandon(true)
		return v.compactLocked(rewrite{})
	})
	return done, err
}

// commitLocked carries the frames appended since b's snapshot into the
// build file, seals its header and swaps it in. false (no error) when
// the result would differ from a locked compaction's; the caller then
// compacts under the lock. The caller holds the exclusive lock, has caught
// up, and abandons b on false or an error.
func (v *Vault) commitLocked(b *Build) (bool, error) {
	groups, err := v.framesSince(b.old.end, b.old.seq)
	if err != nil {
		return false, err
	}
	for _, g := range groups {
		for _, es := range g {
			for i := range es {
				if _, inPayload := b.pw.live[es[i].id]; es[i].op == OpDelete && inPayload {
					return false, nil // a forgotten item's content would be copied
				}
			}
		}
	}
	b.nh.ancestry, b.nh.pad = v.st.nextAncestry(), 0
	b.nh.pad = int(b.hl) - b.nh.encodedLen()
	if b.nh.pad < 0 || b.nh.pad > 0xffff || int64(b.nh.encodedLen()) != b.hl {
		return false, nil // cannot happen: the record grows by at most the room left
	}
	payloadEnd := b.pw.pos
	live := b.pw.live
	pos := payloadEnd
	var journal []byte
	var offs []int64
	seq := uint64(0)
	for _, g := range groups {
		for i, es := range g {
			var mark batchMark
			switch {
			case len(g) == 1:
			case i < len(g)-1:
				mark.op = opBatchMore
			default:
				mark = batchMark{op: opBatchCommit, frames: uint32(len(g))}
			}
			sealed, err := seal(nil, v.k.frame[:], v.rnd, frameEntries(es, mark), aadFrame(roleJournal, b.nh.vaultID, b.nh.epoch, seq))
			if err != nil {
				return false, err
			}
			off := pos + int64(len(journal))
			offs = append(offs, off)
			journal = appendFrame(journal, sealed)
			for j := range es {
				if es[j].op == OpPut {
					live[es[j].id] = loc{off: off, idx: uint32(j), kind: es[j].kind}
				} else {
					delete(live, es[j].id)
				}
			}
			seq++
		}
	}
	if _, err := b.f.WriteAt(journal, pos); err != nil {
		return false, fmt.Errorf("vaultfmt: write the build's journal: %w", err)
	}
	b.nh.payloadLen = uint64(payloadEnd - b.hl)
	raw := b.nh.seal(b.nh.encodeBody(), v.k)
	if _, err := b.f.WriteAt(raw, 0); err != nil {
		return false, fmt.Errorf("vaultfmt: write header: %w", err)
	}
	if err := b.f.Sync(); err != nil {
		return false, fmt.Errorf("vaultfmt: sync %s: %w", b.path, err)
	}
	if err := v.publish(b.path, false); err != nil {
		return false, err
	}
	end := pos + int64(len(journal))
	st := &fileState{
		f: b.f, hdr: b.nh, live: liveOf(live), journalStart: payloadEnd, end: end, seenSize: end,
		payloadItems: b.pw.items, seq: seq, journalFrames: int(seq),
	}
	for i, off := range offs {
		fe := end
		if i+1 < len(offs) {
			fe = offs[i+1]
		}
		st.extendChain(journal[off-pos : fe-pos])
	}
	_ = funlock(b.f) // the build file is the vault now
	old := v.st
	v.st = *st
	old.f.Close()
	b.k.zero()
	if st.fi, err = b.f.Stat(); err != nil {
		return true, fmt.Errorf("vaultfmt: %w", err)
	}
	v.st.fi = st.fi
	if err := syncDir(filepath.Dir(v.path)); err != nil {
		return true, fmt.Errorf("vaultfmt: the vault was rewritten but its directory could not be synced: %w", err)
	}
	return true, nil
}

// framesSince reads the committed journal frames from file offset off
// (frame seq0 of this epoch) to the last good frame, grouped as they were
// committed: a single change, or the frames of one batch. The caller holds
// the lock and has caught up, so every frame there is committed.
func (v *Vault) framesSince(off int64, seq0 uint64) ([][][]entry, error) {
	if v.st.end <= off {
		return nil, nil
	}
	buf := make([]byte, v.st.end-off)
	if _, err := v.st.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("vaultfmt: read journal: %w", err)
	}
	raw, torn, err := scanFrames(buf, off, "journal", int(seq0), true)
	if err != nil {
		return nil, err
	}
	if torn >= 0 {
		return nil, corruptf("journal", torn, -1, "torn frame below the last good one")
	}
	var groups [][][]entry
	var cur [][]entry
	for i, f := range raw {
		es, mark, err := openItemFrame(v.k, v.st.hdr, roleJournal, "journal", int(seq0)+i, f)
		if err != nil {
			return nil, err
		}
		cur = append(cur, es)
		if mark.op != opBatchMore {
			groups, cur = append(groups, cur), nil
		}
	}
	if len(cur) > 0 {
		return nil, corruptf("journal", raw[len(raw)-len(cur)].off, -1, "a batch without its commit below the last good frame")
	}
	return groups, nil
}
