package vaultfmt

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Vault is an open vault file. Methods are safe for use by one goroutine at
// a time; callers serialise.
type Vault struct {
	path   string
	lock   *os.File // <path>.lock, the advisory lock beside the vault
	h      Handler
	rnd    io.Reader
	k      *keys
	st     fileState
	torn   *TornTail
	failed error // a reload failed half-way: the handler's state is unknown
	closed bool
}

// fileState is what the vault knows about the file it has open. A reload or
// a compaction builds a new one and swaps it in whole.
type fileState struct {
	f             *os.File
	fi            os.FileInfo // identity of f, to notice a replacement
	hdr           *header
	live          *liveTable
	journalStart  int64
	end           int64 // just past the last good frame
	seenSize      int64 // the file's size at the last look
	seq           uint64
	payloadItems  int
	journalFrames int
	readOnly      bool // opened without write permission
	// chain holds the history chain values of this epoch (chain.go):
	// element i after i committed journal frames; filled lazily.
	chain [][32]byte
	// tags holds the AEAD tag of each committed journal frame of this
	// epoch, in order: a compaction keeps the newest in the next epoch's
	// ancestry record (ancestry.go).
	tags [][tagSize]byte
}

// noHandler is used when the caller passes none.
type noHandler struct{}

func (noHandler) Reset()             {}
func (noHandler) Apply(Change) error { return nil }

func newVault(path string, h Handler, rnd io.Reader) *Vault {
	if h == nil {
		h = noHandler{}
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	return &Vault{path: path, h: h, rnd: rnd}
}

// Create writes a new vault at path (mode 0600) with one key slot and
// returns it open. It refuses to overwrite: ErrExists.
func Create(path string, opts CreateOptions, h Handler) (*Vault, error) {
	if err := checkSlotSpec(opts.Slot); err != nil {
		return nil, err
	}
	if err := checkPin(opts.Pin); err != nil {
		return nil, err
	}
	v := newVault(path, h, opts.rand)
	if err := v.openLock(); err != nil {
		return nil, err
	}
	err := v.withLock(lockExclusive, func() error { return v.create(opts) })
	if err != nil {
		v.closeFiles()
		return nil, err
	}
	return v, nil
}

func (v *Vault) create(opts CreateOptions) error {
	if _, err := os.Lstat(v.path); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, v.path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("vaultfmt: create %s: %w", v.path, err)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	hdr := &header{version: formatVersion, created: now.UnixNano(), pin: opts.Pin}
	master := make([]byte, keySize)
	defer wipe(master)
	if _, err := io.ReadFull(v.rnd, hdr.vaultID[:]); err != nil {
		return fmt.Errorf("vaultfmt: draw vault id: %w", err)
	}
	if _, err := io.ReadFull(v.rnd, master); err != nil {
		return fmt.Errorf("vaultfmt: draw master key: %w", err)
	}
	s, err := makeSlot(opts.Slot, master, hdr.vaultID, v.rnd)
	if err != nil {
		return err
	}
	hdr.slots = []slot{s}
	if v.k, err = deriveKeys(master, hdr.vaultID); err != nil {
		return err
	}
	st, err := v.writeSnapshot(hdr, nil, nil, true)
	if err != nil {
		return err
	}
	v.st = *st
	return nil
}

// Open reads the header, unlocks the master key, replays the payload and the
// journal into h, and returns the open vault. A torn last frame is dropped
// and reported by [Vault.Torn]; any other damage is ErrCorrupt.
func Open(path string, u Unlock, h Handler) (*Vault, error) {
	v := newVault(path, h, nil)
	if err := v.openLock(); err != nil {
		return nil, err
	}
	err := v.withLock(lockShared, func() error {
		st, err := v.load(&u)
		if err != nil {
			return err
		}
		v.st = *st
		return nil
	})
	if err != nil {
		v.k.zero()
		v.closeFiles()
		return nil, err
	}
	return v, nil
}

// ReadHeader reads and validates the plaintext header only; no credential.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("vaultfmt: %w", err)
	}
	defer f.Close()
	buf := make([]byte, MaxHeaderBytes)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return Header{}, fmt.Errorf("vaultfmt: read %s: %w", path, err)
	}
	h, err := parseHeader(buf[:n])
	if err != nil {
		return Header{}, err
	}
	return h.public(), nil
}

// load opens the file at v.path and replays it into the handler. With u it
// unlocks (Open); without, it is a reload after another process replaced
// the file, and the header must authenticate under the keys already held.
// The caller holds the lock.
func (v *Vault) load(u *Unlock) (*fileState, error) {
	readOnly := false
	f, err := os.OpenFile(v.path, os.O_RDWR, 0)
	if err != nil && isReadOnlyErr(err) {
		// A vault on read-only media or without write permission still
		// opens for reading; writes are refused with a clear error.
		readOnly = true
		f, err = os.Open(v.path)
	}
	if err != nil {
		return nil, fmt.Errorf("vaultfmt: %w", err)
	}
	st, err := v.loadFrom(f, u)
	if err != nil {
		f.Close()
		return nil, err
	}
	st.readOnly = readOnly
	return st, nil
}

func (v *Vault) loadFrom(f *os.File, u *Unlock) (*fileState, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("vaultfmt: %w", err)
	}
	im, err := readImage(f, fi.Size())
	if err != nil {
		return nil, err
	}
	defer im.release()
	data := im.data
	hdr, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	if u != nil {
		if v.k, err = unlockKeys(hdr, *u); err != nil {
			return nil, err
		}
	} else {
		if !hdr.checkMAC(v.k) {
			return nil, corruptf("header", int64(hdr.length)-trailerSize, -1, "the replacement file's header does not authenticate under this vault's key")
		}
		v.h.Reset()
	}
	st := &fileState{f: f, fi: fi, hdr: hdr, live: newReplayLive(0), seenSize: int64(len(data))}
	if err := v.replay(st, im); err != nil {
		return nil, err
	}
	return st, nil
}

// replay feeds the payload and the journal of a file image to the handler
// and fills st.
func (v *Vault) replay(st *fileState, im *image) error {
	data := im.data
	var skipper func() func() func(ID, Kind, Seal) (uint32, bool)
	if sk, ok := v.h.(Skipper); ok {
		skipper = sk.SkipOpen
	}
	for {
		sizeLive := func(n int) { st.live.reserve(n) }
		_, items, err := walkPayloadSkipping(data, st.hdr, v.k, im.passing(v.applyFn(st, false)), true, skipper, sizeLive)
		if err != nil {
			return err
		}
		st.payloadItems = items
		pe, ok := v.h.(PayloadEnder)
		if !ok {
			break
		}
		err = pe.PayloadEnd(st.hdr.epoch)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrReplayOpened) || skipper == nil {
			return fmt.Errorf("vaultfmt: handler: %w", err)
		}
		// What covered the skipped items is not to be used: replay
		// again, opening every one of them.
		skipper = nil
		v.h.Reset()
		st.live.reset()
	}
	st.journalStart = int64(st.hdr.length) + int64(st.hdr.payloadLen)
	st.end = st.journalStart
	return v.replayJournal(st, data[st.journalStart:], st.journalStart, im)
}

// replayJournal feeds journal frames starting at file offset base; st.end
// and st.seq advance frame by frame, so after an error they still describe
// what was applied.
func (v *Vault) replayJournal(st *fileState, buf []byte, base int64, im *image) error {
	apply := v.applyFn(st, true)
	chained := func(off, end int64, es []entry) error {
		if err := apply(off, end, es); err != nil {
			return err
		}
		st.extendChain(buf[:end-base])
		im.passed(end)
		return nil
	}
	_, torn, err := walkJournal(buf, base, st.hdr, v.k, st.seq, chained)
	if err != nil {
		return err
	}
	if torn >= 0 {
		v.torn = &TornTail{Offset: torn, Bytes: base + int64(len(buf)) - torn}
	}
	return nil
}

// applyFn returns the frame callback that opens items, feeds the handler
// and keeps st's live map (and, for journal frames, its position) current.
func (v *Vault) applyFn(st *fileState, journal bool) frameFn {
	return func(off, end int64, es []entry) error {
		for i := range es {
			e := &es[i]
			c := Change{Op: e.op, Item: Item{ID: e.id, Kind: e.kind}}
			if e.op == OpPut {
				body := e.plain
				if e.skip {
					c.Covered, c.Cover = true, e.cover
				} else if body == nil {
					var err error
					if body, err = openItem(v.k, st.hdr.vaultID, e); err != nil {
						return corruptf("item", off, -1, "entry %d (id %x): %v", i, e.id, err)
					}
				}
				c.Item.Body = body
				st.live.logPut(e.id, loc{off: off, idx: uint32(i), kind: e.kind})
			} else {
				st.live.logDelete(e.id)
			}
			if err := v.h.Apply(c); err != nil {
				return fmt.Errorf("vaultfmt: handler: %w", err)
			}
		}
		if journal {
			st.end = end
			st.seq++
			st.journalFrames++
		}
		return nil
	}
}

// Header returns the header as currently on disk.
func (v *Vault) Header() Header {
	if v.st.hdr == nil {
		return Header{}
	}
	return v.st.hdr.public()
}

// MasterKey returns a copy of the master key (for an unlock session).
func (v *Vault) MasterKey() []byte {
	if v.k == nil || v.closed {
		return nil
	}
	return append([]byte(nil), v.k.master[:]...)
}

// Torn reports the torn tail dropped at open (or, later, one a crashed
// writer left and a catch-up found), or nil.
func (v *Vault) Torn() *TornTail {
	if v.torn == nil {
		return nil
	}
	t := *v.torn
	return &t
}

// Stats describes the file.
func (v *Vault) Stats() Stats {
	st := &v.st
	if st.hdr == nil {
		return Stats{}
	}
	return Stats{
		FileBytes:     st.seenSize,
		HeaderBytes:   int64(st.hdr.length),
		PayloadItems:  st.payloadItems,
		PayloadBytes:  int64(st.hdr.payloadLen),
		JournalFrames: st.journalFrames,
		JournalBytes:  st.end - st.journalStart,
		Epoch:         st.hdr.epoch,
		LiveItems:     len(st.live.items()),
		TornBytes:     st.seenSize - st.end,
	}
}

// JournalFrames is Stats().JournalFrames without the rest of Stats (whose
// live item count builds the live-item table a replay left lazy).
func (v *Vault) JournalFrames() int { return v.st.journalFrames }

// Close releases the file and zeroes the key material.
func (v *Vault) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	v.k.zero()
	v.st.live = nil
	return v.closeFiles()
}

func (v *Vault) closeFiles() error {
	var err error
	if v.st.f != nil {
		err = v.st.f.Close()
		v.st.f = nil
	}
	if v.lock != nil {
		if e := v.lock.Close(); err == nil {
			err = e
		}
		v.lock = nil
	}
	return err
}

// usable refuses calls on a closed vault or one whose reload failed.
func (v *Vault) usable() error {
	if v.closed {
		return ErrClosed
	}
	return v.failed
}

// ReadOnly reports whether the file was opened without write permission
// (read-only media, or a file the user may not write).
func (v *Vault) ReadOnly() bool { return v.st.readOnly }

// writable is usable, and refuses writes to a file opened read-only.
func (v *Vault) writable() error {
	if err := v.usable(); err != nil {
		return err
	}
	if v.st.readOnly {
		return fmt.Errorf("vaultfmt: %s is open read-only (no write permission)", v.path)
	}
	return nil
}

// openLock opens (creating, mode 0600) the lock file beside the vault.
func (v *Vault) openLock() error {
	f, err := os.OpenFile(v.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	createErr := err
	if err != nil {
		f, err = os.Open(v.path + ".lock") // a read-only directory with an existing lock file
	}
	if err != nil && errors.Is(err, fs.ErrNotExist) && isReadOnlyErr(createErr) && !fileWritable(v.path) {
		// Read-only media (or a directory and file this user may not
		// write) with no lock file: no process can write the vault
		// or make the lock file, so there is no writer to lock
		// against, and reading goes ahead without the lock. This
		// handle is read-only too (writable refuses every write).
		return nil
	}
	if err != nil {
		return fmt.Errorf("vaultfmt: lock file: %w", err)
	}
	v.lock = f
	return nil
}

// fileWritable reports whether this process could open path for writing
// (without changing it).
func fileWritable(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// withLock runs fn holding the advisory lock in mode; with no lock file
// (read-only media, see openLock) it runs fn alone.
func (v *Vault) withLock(mode int, fn func() error) error {
	if v.lock == nil {
		return fn()
	}
	if err := flock(v.lock, mode); err != nil {
		return fmt.Errorf("vaultfmt: lock %s.lock: %w", v.path, err)
	}
	defer funlock(v.lock)
	return fn()
}

// checkPin refuses a pin that would not fit the header.
func checkPin(p ModelPin) error {
	if len(p.Name) > maxPinName {
		return fmt.Errorf("vaultfmt: model pin name is %d bytes, at most %d", len(p.Name), maxPinName)
	}
	return nil
}

// Position is where a vault's committed history stands: the compaction
// epoch, the number of committed journal frames in it, and a digest of
// that exact state (FORMAT.md §7.6), so two different histories at the
// same epoch and count still differ. Positions order as (Epoch, Seq).
type Position struct {
	VaultID [16]byte
	Epoch   uint64
	Seq     uint64
	Digest  [32]byte
	// Chain is the history chain after Seq frames (chain.go): it names
	// every frame of the epoch, not only the last.
	Chain [32]byte
}

// Before reports whether p is an earlier state than q.
func (p Position) Before(q Position) bool {
	return p.Epoch < q.Epoch || p.Epoch == q.Epoch && p.Seq < q.Seq
}

// positionDomain separates the position digest from every other hash.
// Part of the format: do not change.
const positionDomain = "compartment position v1\x00"

// Position returns the state of the file as this handle last read or
// wrote it: its digest is SHA-256(domain || header MAC || the tag of the
// last committed journal frame, when there is one).
func (v *Vault) Position() (Position, error) {
	if err := v.usable(); err != nil {
		return Position{}, err
	}
	st := &v.st
	p := Position{VaultID: st.hdr.vaultID, Epoch: st.hdr.epoch, Seq: st.seq}
	h := sha256.New()
	h.Write([]byte(positionDomain))
	h.Write(st.hdr.mac[:])
	if st.end > st.journalStart {
		tag := make([]byte, tagSize)
		if _, err := st.f.ReadAt(tag, st.end-tagSize); err != nil {
			return Position{}, fmt.Errorf("vaultfmt: read the last frame's tag: %w", err)
		}
		h.Write(tag)
	}
	copy(p.Digest[:], h.Sum(nil))
	p.Chain = st.history()[st.seq]
	return p, nil
}
