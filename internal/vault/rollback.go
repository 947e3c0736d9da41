package vault

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// ErrRollback is returned when a vault file is older than (or a different
// history from) the newest state this machine has seen of it.
var ErrRollback = errors.New("the vault file is an older copy than this machine has seen")

// The seen-state record (FORMAT.md §7.6). Part of the format: do not
// change.
const (
	seenKeyInfo = "compartment seen-state key v1"
	seenDomain  = "compartment seen-state v1\x00" // records without a chain (read only)
	seenDomain2 = "compartment seen-state v2\x00" // records with the history chain
)

// seenRecord is the newest state of one vault this machine has seen, in
// <state dir>/<vault id>.json, MACed under a key derived from the vault's
// master key: without the key it can be deleted, not forged.
type seenRecord struct {
	VaultID string    `json:"vault_id"`
	Epoch   uint64    `json:"epoch"`
	Seq     uint64    `json:"seq"`
	Digest  string    `json:"digest"`
	Chain   string    `json:"chain,omitempty"` // absent in v1 records
	Seen    time.Time `json:"seen"`
	MAC     string    `json:"mac"`
}

// rollbackGuard remembers, per vault, the newest position seen, and
// refuses an older one.
type rollbackGuard struct {
	dir    string // "" = off
	accept bool   // --accept-rollback: take the file as it is, once
	last   vaultfmt.Position
	key    []byte
	// known is the newest position this process knows was recorded (read
	// from the record or written to it); dirty says last is newer than
	// the record on disk, written at most every recordEvery by own writes
	// and always on Close.
	known   vaultfmt.Position
	dirty   bool
	written time.Time
}

// recordEvery bounds how often a process's own writes rewrite the record:
// a store must stay cheap, and Close writes what is pending.
const recordEvery = 250 * time.Millisecond

func (v *Vault) seenPath(id [16]byte) string {
	return filepath.Join(v.guard.dir, hex.EncodeToString(id[:])+".json")
}

// seenMAC authenticates a record's fields: a v2 record's (with its chain)
// when p has a chain, a v1 record's otherwise.
func (g *rollbackGuard) seenMAC(p vaultfmt.Position, seen time.Time) string {
	m := hmac.New(sha256.New, g.key)
	if p.Chain == ([32]byte{}) {
		m.Write([]byte(seenDomain))
	} else {
		m.Write([]byte(seenDomain2))
	}
	m.Write(p.VaultID[:])
	m.Write(binary.LittleEndian.AppendUint64(nil, p.Epoch))
	m.Write(binary.LittleEndian.AppendUint64(nil, p.Seq))
	m.Write(p.Digest[:])
	if p.Chain != ([32]byte{}) {
		m.Write(p.Chain[:])
	}
	m.Write(binary.LittleEndian.AppendUint64(nil, uint64(seen.UnixMilli())))
	return hex.EncodeToString(m.Sum(nil))
}

// guardKey derives the record's MAC key from the master key.
func guardKey(master []byte) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte(seenKeyInfo))
	return m.Sum(nil)
}

// checkRollback compares the file's position with the newest one this
// machine remembers for the vault and remembers the file's when it is
// newer. The caller holds v.mu (or is Open). An older position, a
// different history at the same position, or a record that does not
// authenticate is refused, unless the guard accepts (and then overwrites)
// it. A refusal is retried once after catching up: another process may
// have compacted and recorded its state between our read and our check.
//
// After this process's own write (own), the position is compared with
// the newest state the process knows of instead of the record on disk, and
// the record is rewritten at most every recordEvery.
func (v *Vault) checkRollback(own bool) error {
	g := &v.guard
	if g.dir == "" {
		return nil
	}
	cur, err := v.file.Position()
	if err != nil {
		return err
	}
	if cur == g.last {
		return nil
	}
	if g.key == nil {
		master := v.file.MasterKey()
		g.key = guardKey(master)
		clear(master)
	}
	ref := g.known
	if ref.Before(g.last) {
		ref = g.last
	}
	if own && !cur.Before(ref) && v.descent(ref) == vaultfmt.Descends && !(sameSpot(cur, ref) && cur.Digest != ref.Digest) {
		g.last, g.dirty = cur, true
		if time.Since(g.written) >= recordEvery {
			return v.flushSeen()
		}
		return nil
	}
	err = v.compareSeen(cur)
	if errors.Is(err, ErrRollback) && !g.accept {
		if rerr := v.file.Refresh(); rerr != nil {
			return rerr
		}
		if err2 := v.st.settle(); err2 != nil {
			return err2
		}
		if cur, err = v.file.Position(); err != nil {
			return err
		}
		err = v.compareSeen(cur)
	}
	if err != nil && !(g.accept && errors.Is(err, ErrRollback)) {
		return err
	}
	force := err != nil
	g.accept = false // accepted once: from now on this state is the newest
	g.last = cur
	if !force && !g.known.Before(cur) {
		return nil // the record already names this state
	}
	g.dirty = true
	return v.rememberSeen(cur, force)
}

// flushSeen writes the record when own writes left it behind (Close).
func (v *Vault) flushSeen() error {
	if !v.guard.dirty || v.guard.dir == "" {
		return nil
	}
	return v.rememberSeen(v.guard.last, false)
}

// descent reports whether the file, as this handle last read or wrote it,
// holds the history ref names: at ref's epoch by the chain after ref's
// frames, at a later epoch by the header's ancestry record (FORMAT.md
// §2.2), which keeps the last 8 epochs. A record without a chain (v1)
// cannot be compared: the position rules alone judge it.
func (v *Vault) descent(ref vaultfmt.Position) vaultfmt.Descent {
	if ref.Chain == ([32]byte{}) {
		return vaultfmt.Descends
	}
	return v.file.DescendsFrom(ref.Epoch, ref.Seq, ref.Chain)
}

// sameSpot reports whether p and q are at the same epoch and count.
func sameSpot(p, q vaultfmt.Position) bool { return p.Epoch == q.Epoch && p.Seq == q.Seq }

// compareSeen refuses cur when the record names a newer or different
// state; nil when there is no record or cur is as new or newer.
func (v *Vault) compareSeen(cur vaultfmt.Position) error {
	g := &v.guard
	seen, when, err := v.readSeen(cur.VaultID)
	if err != nil {
		return err
	}
	if g.known.Before(seen) || g.known == (vaultfmt.Position{}) {
		g.known = seen
	}
	// What this process itself saw last may be newer than the record (its
	// own writes are recorded at most every recordEvery).
	if g.last != (vaultfmt.Position{}) && seen.Before(g.last) {
		seen, when = g.last, "earlier in this process"
	}
	switch {
	case cur.Before(seen):
		return fmt.Errorf("%w: %s is at epoch %d, write %d, but this machine saw epoch %d, write %d %s; if you restored a backup on purpose, open it once with --accept-rollback",
			ErrRollback, v.path, cur.Epoch, cur.Seq, seen.Epoch, seen.Seq, when)
	case sameSpot(cur, seen) && seen.Digest != ([32]byte{}) && cur.Digest != seen.Digest:
		return fmt.Errorf("%w: %s is at epoch %d, write %d, as this machine saw %s, but with different contents (another copy that was written to separately); if that copy is the one to keep, open it once with --accept-rollback",
			ErrRollback, v.path, cur.Epoch, cur.Seq, when)
	}
	switch d := v.descent(seen); {
	case d == vaultfmt.Descends:
		return nil
	case cur.Epoch == seen.Epoch:
		return fmt.Errorf("%w: %s is at epoch %d, write %d, past the epoch %d, write %d this machine saw %s, but its first %d writes have different contents: it is another copy that was written to separately, and the writes made here since would be lost; if that copy is the one to keep, open it once with --accept-rollback",
			ErrRollback, v.path, cur.Epoch, cur.Seq, seen.Epoch, seen.Seq, when, seen.Seq)
	case d == vaultfmt.Diverges:
		return fmt.Errorf("%w: %s is at epoch %d, write %d, compacted since the epoch %d, write %d this machine saw %s, but its history does not hold that state: it is another copy that was written to separately (and compacted elsewhere), and the writes made here since would be lost; if that copy is the one to keep, open it once with --accept-rollback",
			ErrRollback, v.path, cur.Epoch, cur.Seq, seen.Epoch, seen.Seq, when)
	default:
		return fmt.Errorf("%w: %s is at epoch %d, write %d, compacted elsewhere since the epoch %d, write %d this machine saw %s, and it does not keep enough of its history to show it holds that state (more than 8 compactions, more than 1,024 writes before one, or a compaction by an older build), so it may be another copy that was written to separately; if that copy is the one to keep, open it once with --accept-rollback",
			ErrRollback, v.path, cur.Epoch, cur.Seq, seen.Epoch, seen.Seq, when)
	}
}

// readSeen reads and authenticates the record of vault id: its position
// and when it was seen ("on DATE"); a zero position when there is none.
func (v *Vault) readSeen(id [16]byte) (vaultfmt.Position, string, error) {
	path := v.seenPath(id)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return vaultfmt.Position{}, "", nil
	}
	if err != nil {
		return vaultfmt.Position{}, "", fmt.Errorf("rollback check: %w", err)
	}
	var rec seenRecord
	if json.Unmarshal(data, &rec) != nil {
		return vaultfmt.Position{}, "", fmt.Errorf("%w: the record of its newest state (%s) is not readable: open it with --accept-rollback to start the record again from this file", ErrRollback, path)
	}
	seen := vaultfmt.Position{VaultID: id, Epoch: rec.Epoch, Seq: rec.Seq}
	digest, derr := hex.DecodeString(rec.Digest)
	copy(seen.Digest[:], digest)
	chain, cerr := hex.DecodeString(rec.Chain)
	copy(seen.Chain[:], chain)
	if rec.Chain != "" && (cerr != nil || len(chain) != 32 || seen.Chain == ([32]byte{})) {
		derr = errors.New("bad chain")
	}
	if derr != nil || len(digest) != 32 || rec.VaultID != hex.EncodeToString(id[:]) || !hmac.Equal([]byte(rec.MAC), []byte(v.guard.seenMAC(seen, rec.Seen))) {
		return vaultfmt.Position{}, "", fmt.Errorf("%w: the record of its newest state (%s) does not authenticate under this vault's key (altered, or not this vault's): open it with --accept-rollback to start the record again from this file", ErrRollback, path)
	}
	return seen, "on " + rec.Seen.Local().Format("2006-01-02 15:04"), nil
}

// rememberSeen records cur as the newest state, through a tmp file and a
// rename. It does not fsync: losing the record in a crash only weakens
// the check, and a write per store must stay cheap; for the same reason a
// record that cannot be written (a read-only home) is skipped. Without
// force it never replaces a record of a newer state another process wrote
// meanwhile.
func (v *Vault) rememberSeen(cur vaultfmt.Position, force bool) error {
	g := &v.guard
	path := v.seenPath(cur.VaultID)
	if data, err := os.ReadFile(path); err == nil && !force {
		var rec seenRecord
		if json.Unmarshal(data, &rec) == nil && !(vaultfmt.Position{Epoch: rec.Epoch, Seq: rec.Seq}).Before(cur) {
			return nil // as new already
		}
	}
	now := v.now().UTC().Truncate(time.Millisecond)
	rec := seenRecord{VaultID: hex.EncodeToString(cur.VaultID[:]), Epoch: cur.Epoch, Seq: cur.Seq,
		Digest: hex.EncodeToString(cur.Digest[:]), Chain: hex.EncodeToString(cur.Chain[:]), Seen: now, MAC: g.seenMAC(cur, now)}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if os.MkdirAll(g.dir, 0o700) != nil {
		return nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if os.WriteFile(tmp, append(data, '\n'), 0o600) != nil || os.Rename(tmp, path) != nil {
		os.Remove(tmp)
		return nil
	}
	g.known, g.dirty, g.written = cur, false, time.Now()
	return nil
}
