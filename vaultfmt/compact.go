package vaultfmt

import (
	"bufio"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// payloadFrameTarget is the plaintext size at which compaction closes a
// payload frame: large enough that the per-frame cost (an AEAD setup and a
// 48-byte envelope) vanishes, small enough that a frame is cheap to hold.
// A variable only so tests can put one item in each frame.
var payloadFrameTarget = 64 << 10

// rewrite says what a compaction changes besides dropping dead items.
type rewrite struct {
	slots []slot             // new key slots (Rekey); nil keeps them
	pin   *ModelPin          // new model pin (SetPin); nil keeps it
	sign  ed25519.PrivateKey // sign the result (Sign); nil writes it unsigned
	scrub bool               // zero the replaced file's bytes (Shred)
}

// Compact rewrites the file as header + payload of live items: tmp file,
// fsync, rename, fsync of the directory. Deleted items' bytes are gone. A
// signature is dropped, since it would no longer match: [Vault.Sign]
// compacts and signs in one step.
func (v *Vault) Compact() error { return v.rewrite(rewrite{}) }

// Shred deletes the items and compacts at once, so their per-item keys and
// sealed bodies no longer exist in the file. Live items among ids get a
// tombstone first (fsynced), so a crash before the rename still deletes
// them; as with Append, the handler is not told. The replaced file is then
// overwritten with zeros when no other name links to it (best effort: a
// copy-on-write filesystem or an SSD may keep old blocks).
func (v *Vault) Shred(ids []ID) error {
	if err := v.writable(); err != nil {
		return err
	}
	return v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			return err
		}
		var tombs []Change
		for _, id := range ids {
			if l, ok := v.st.live.items()[id]; ok {
				tombs = append(tombs, Change{Op: OpDelete, Item: Item{ID: id, Kind: l.kind}})
			}
		}
		if len(tombs) > 0 {
			if err := v.appendLocked(tombs); err != nil {
				return err
			}
		}
		return v.compactLocked(rewrite{scrub: true})
	})
}

// Rekey replaces all key slots at once (new passphrase, adding or removing
// the keyfile factor); the master key and the items stay.
func (v *Vault) Rekey(specs []SlotSpec) error {
	if err := v.writable(); err != nil {
		return err
	}
	// Argon2id runs before the lock is taken: it is slow on purpose.
	slots, err := makeSlots(specs, v.k.master[:], v.st.hdr.vaultID, v.rnd)
	if err != nil {
		return err
	}
	return v.rewrite(rewrite{slots: slots})
}

// SetPin records a new model pin in the header (after a re-embed).
func (v *Vault) SetPin(pin ModelPin) error {
	if err := checkPin(pin); err != nil {
		return err
	}
	return v.rewrite(rewrite{pin: &pin})
}

// rewrite compacts under the exclusive lock after catching up.
func (v *Vault) rewrite(o rewrite) error {
	if err := v.writable(); err != nil {
		return err
	}
	return v.withLock(lockExclusive, func() error {
		if err := v.catchUp(true); err != nil {
			return err
		}
		return v.compactLocked(o)
	})
}

// compactLocked writes the live items into a new file at the next epoch
// and swaps it in. The old file is re-read and re-authenticated on the
// way, so damage that appeared since open stops the compaction rather than
// being copied.
func (v *Vault) compactLocked(o rewrite) error {
	old := v.st
	im, err := readImage(old.f, old.end)
	if err != nil {
		return err
	}
	defer im.release()
	nh := &header{
		version: formatVersion, vaultID: old.hdr.vaultID, created: old.hdr.created,
		epoch: old.hdr.epoch + 1, slots: old.hdr.slots, pin: old.hdr.pin,
		ancestry: old.nextAncestry(),
	}
	if o.slots != nil {
		nh.slots = o.slots
	}
	if o.pin != nil {
		nh.pin = *o.pin
	}
	// Derived items come first: they set the header's derived kind, and
	// the header's length is fixed before the payload is written.
	dropKind := v.derivedKindOf(old.hdr)
	derived, err := v.derivedItems(nh, func(id ID) bool {
		l, ok := old.live.items()[id]
		return ok && (dropKind == 0 || l.kind != dropKind)
	}, func() (map[ID]Seal, error) { return v.liveSeals(im) })
	if err != nil {
		return err
	}
	st, err := v.writeSnapshot(nh, sweepLive(v.k, v.rnd, &v.st, im, derived, dropKind), o.sign, false)
	if st == nil {
		return err
	}
	v.st = *st
	if o.scrub {
		scrubReplaced(old.f, old.end)
	}
	old.f.Close()
	return err
}

// liveSeals walks the old file (payload and journal, im) and returns the
// seal of every live item's stored version.
func (v *Vault) liveSeals(im *image) (map[ID]Seal, error) {
	old, data := &v.st, im.data
	live := old.live.items()
	m := make(map[ID]Seal, len(live))
	keep := func(off, _ int64, es []entry) error {
		for i := range es {
			if l, ok := live[es[i].id]; ok && l.off == off && l.idx == uint32(i) {
				m[es[i].id] = sealOf(&es[i])
			}
		}
		return nil
	}
	keep = im.sweeping(keep)
	if _, _, err := walkPayload(data, old.hdr, v.k, keep); err != nil {
		return nil, err
	}
	if _, _, err := walkJournal(data[old.journalStart:old.end], old.journalStart, old.hdr, v.k, 0, keep); err != nil {
		return nil, err
	}
	return m, nil
}

// sweepLive yields the new derived items (§2.11), each made its entry
// (derivedEntry, with k and rnd) as its turn comes and then dropped from
// derived, so the build holds at most one sealed copy at a time and frees
// each part once it is written; then, in file order, exactly the entries
// that hold the live version of an item, leaving out the old derived
// items (those of dropKind, when it is not 0). im is the file old
// describes, up to old.end at least; the pages the sweep has read leave
// the resident set as it goes (a mapped image). The sweep runs once: it
// uses derived up.
func sweepLive(k *keys, rnd io.Reader, old *fileState, im *image, derived []Item, dropKind Kind) func(add func(*entry) error) error {
	data := im.data
	return func(add func(*entry) error) error {
		for i := range derived {
			e, err := derivedEntry(k, old.hdr.vaultID, rnd, derived[i])
			derived[i] = Item{}
			if err != nil {
				return err
			}
			if err := add(&e); err != nil {
				return err
			}
		}
		kept := 0
		live := old.live.items()
		keep := func(off, _ int64, es []entry) error {
			for i := range es {
				if l, ok := live[es[i].id]; ok && l.off == off && l.idx == uint32(i) {
					kept++
					if dropKind != 0 && l.kind == dropKind {
						continue
					}
					if err := add(&es[i]); err != nil {
						return err
					}
				}
			}
			return nil
		}
		keep = im.sweeping(keep)
		if _, _, err := walkPayload(data, old.hdr, k, keep); err != nil {
			return err
		}
		if _, _, err := walkJournal(data[old.journalStart:old.end], old.journalStart, old.hdr, k, 0, keep); err != nil {
			return err
		}
		if kept != len(live) {
			return fmt.Errorf("vaultfmt: compaction found %d of %d live items; nothing was changed", kept, len(live))
		}
		return nil
	}
}

// writeSnapshot writes hdr and a payload of the entries sweep yields to
// <path>.tmp, fsyncs it and moves it over the vault (for a new vault:
// links it, so an existing file is never replaced), then fsyncs the
// directory. It returns the new file's state. A nil state means the vault
// file was not touched; a state with an error means the file was replaced
// but the directory sync failed.
func (v *Vault) writeSnapshot(hdr *header, sweep func(add func(*entry) error) error, sign ed25519.PrivateKey, create bool) (*fileState, error) {
	tmp := v.path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("vaultfmt: remove stale %s: %w", tmp, err)
	}
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("vaultfmt: %w", err)
	}
	st, err := v.fillSnapshot(f, hdr, sweep, sign)
	if err == nil {
		err = v.publish(tmp, create)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if st.fi, err = f.Stat(); err != nil {
		return st, fmt.Errorf("vaultfmt: %w", err)
	}
	if err := syncDir(filepath.Dir(v.path)); err != nil {
		return st, fmt.Errorf("vaultfmt: the vault was rewritten but its directory could not be synced: %w", err)
	}
	return st, nil
}

// fillSnapshot writes the payload after room for the header, then the
// header (whose payload length, signature and MAC depend on the payload),
// then fsyncs.
func (v *Vault) fillSnapshot(f *os.File, hdr *header, sweep func(add func(*entry) error) error, sign ed25519.PrivateKey) (*fileState, error) {
	hdr.sig = nil
	if sign != nil {
		hdr.sig = &Signature{PublicKey: sign.Public().(ed25519.PublicKey), Sig: make([]byte, ed25519.SignatureSize)}
	}
	hl := int64(hdr.encodedLen())
	if _, err := f.Seek(hl, io.SeekStart); err != nil {
		return nil, fmt.Errorf("vaultfmt: %w", err)
	}
	pw := &payloadWriter{w: bufio.NewWriterSize(f, 1<<20), k: v.k, hdr: hdr, rnd: v.rnd, pos: hl, live: map[ID]loc{}}
	if sign != nil {
		pw.hash = sha256.New()
	}
	if sweep != nil {
		if err := sweep(pw.add); err != nil {
			return nil, err
		}
	}
	if err := pw.finish(); err != nil {
		return nil, err
	}
	hdr.payloadLen = uint64(pw.pos - hl)
	body := hdr.encodeBody()
	if sign != nil {
		var payloadSum [32]byte
		copy(payloadSum[:], pw.hash.Sum(nil))
		copy(hdr.sig.Sig, ed25519.Sign(sign, manifest(hdr, headerDigest(hdr, body), payloadSum)))
		body = hdr.encodeBody()
	}
	raw := hdr.seal(body, v.k)
	if _, err := f.WriteAt(raw, 0); err != nil {
		return nil, fmt.Errorf("vaultfmt: write header: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("vaultfmt: sync %s: %w", f.Name(), err)
	}
	return &fileState{
		f: f, hdr: hdr, live: liveOf(pw.live), journalStart: pw.pos, end: pw.pos,
		seenSize: pw.pos, payloadItems: pw.items,
	}, nil
}

// publish makes the synced tmp file the vault.
func (v *Vault) publish(tmp string, create bool) error {
	if err := failpoint(FailCompactBeforeRename); err != nil {
		return fmt.Errorf("vaultfmt: compaction stopped, the vault is as it was: %w", err)
	}
	if create {
		err := os.Link(tmp, v.path)
		switch {
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("%w: %s", ErrExists, v.path)
		case err == nil:
			return os.Remove(tmp)
		}
		// No hard links on this filesystem: the lock and the check in
		// create keep the rename below from replacing a vault.
	}
	err := failpoint(FailCompactRename)
	if err == nil {
		err = os.Rename(tmp, v.path)
	}
	if err != nil {
		return fmt.Errorf("vaultfmt: rename over the vault failed, the vault is as it was: %w", err)
	}
	return nil
}

// payloadWriter packs entries into sealed payload frames.
type payloadWriter struct {
	w       *bufio.Writer
	hash    hash.Hash // SHA-256 of the payload bytes, when signing
	k       *keys
	hdr     *header
	rnd     io.Reader
	pos     int64 // file offset of the next frame
	seq     uint64
	pending []entry
	size    int
	items   int
	live    map[ID]loc
}

func (p *payloadWriter) add(e *entry) error {
	// Derived items fill frames of their own (2.11), so a reader can
	// apply them before it opens the frames of the items they cover.
	if d := p.hdr.derived; d != 0 && len(p.pending) > 0 && p.pending[len(p.pending)-1].kind == d && e.kind != d {
		if err := p.flush(); err != nil {
			return err
		}
	}
	p.pending = append(p.pending, *e)
	p.size += e.encodedSize()
	if p.size >= payloadFrameTarget {
		return p.flush()
	}
	return nil
}

// flush seals the pending entries as the next payload frame.
func (p *payloadWriter) flush() error {
	if len(p.pending) == 0 {
		return nil
	}
	aad := aadFrame(rolePayload, p.hdr.vaultID, p.hdr.epoch, p.seq)
	sealed, err := seal(nil, p.k.frame[:], p.rnd, frameEntries(p.pending, batchMark{}), aad)
	if err != nil {
		return err
	}
	for i := range p.pending {
		e := &p.pending[i]
		p.live[e.id] = loc{off: p.pos, idx: uint32(i), kind: e.kind}
	}
	p.items += len(p.pending)
	clear(p.pending) // the sealed bodies (a segment part: megabytes) are written
	p.pending, p.size = p.pending[:0], 0
	return p.write(sealed)
}

// finish writes the last frame and the end marker.
func (p *payloadWriter) finish() error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := failpoint(FailCompactMidWrite); err != nil {
		return fmt.Errorf("vaultfmt: write payload: %w", err)
	}
	var marker [endMarkerSize]byte
	binary.LittleEndian.PutUint64(marker[:], uint64(p.items))
	binary.LittleEndian.PutUint64(marker[8:], p.seq)
	sealed, err := seal(nil, p.k.frame[:], p.rnd, marker[:], aadFrame(rolePayloadEnd, p.hdr.vaultID, p.hdr.epoch, p.seq))
	if err != nil {
		return err
	}
	if err := p.write(sealed); err != nil {
		return err
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("vaultfmt: write payload: %w", err)
	}
	return nil
}

func (p *payloadWriter) write(sealed []byte) error {
	frame := appendFrame(nil, sealed)
	if p.hash != nil {
		p.hash.Write(frame)
	}
	if _, err := p.w.Write(frame); err != nil {
		return fmt.Errorf("vaultfmt: write payload: %w", err)
	}
	p.pos += int64(len(frame))
	p.seq++
	return nil
}

// syncDir fsyncs a directory, making a rename in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// scrubReplaced overwrites a file that compaction has just replaced, when
// nothing else links to it, so shredded bytes do not linger in its blocks.
// Other processes never read a replaced file without first noticing the
// replacement under the lock, which this process holds exclusively.
func scrubReplaced(f *os.File, size int64) {
	if n, ok := linkCount(f); !ok || n != 0 {
		return
	}
	zeros := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(zeros)) {
		n := min(int64(len(zeros)), size-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return
		}
	}
	_ = fdatasync(f)
}
