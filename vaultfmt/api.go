package vaultfmt

// This file is the contract between vaultfmt and its callers. The bodies are
// placeholders until the container lands (issue 2).

import (
	"crypto/ed25519"
	"errors"
	"time"
)

// Sentinel errors; callers test them with errors.Is.
var (
	ErrNotVault           = errors.New("vaultfmt: not a vault file")
	ErrUnsupportedVersion = errors.New("vaultfmt: unsupported format version")
	ErrWrongPassphrase    = errors.New("vaultfmt: wrong passphrase or keyfile")
	ErrKeyfileRequired    = errors.New("vaultfmt: this vault needs its keyfile")
	ErrCorrupt            = errors.New("vaultfmt: vault file is damaged or has been tampered with")
	ErrExists             = errors.New("vaultfmt: vault already exists")
	ErrClosed             = errors.New("vaultfmt: vault is closed")
)

// ID names one item (a record, a relation, an audit entry ...).
type ID [16]byte

// Kind is the caller's tag for an item; vaultfmt stores it and gives it no
// meaning.
type Kind uint8

// Item is one stored thing. Body is plaintext and belongs to the caller.
type Item struct {
	ID   ID
	Kind Kind
	Body []byte
}

// Op is what a change does.
type Op uint8

const (
	OpPut    Op = 1 // insert or replace the item with this ID
	OpDelete Op = 2 // tombstone: the item is gone (Body empty)
)

// Change is one replayed or appended event.
type Change struct {
	Op   Op
	Item Item
}

// Handler receives the vault's contents: on open, on refresh, and before an
// append when other processes have written since.
type Handler interface {
	// Reset drops everything: a full replay from the start follows (used
	// when another process compacted the file).
	Reset()
	// Apply takes one change, in file order.
	Apply(Change) error
}

// KDFParams are one key slot's Argon2id parameters.
type KDFParams struct {
	Time      uint32 // passes
	MemoryKiB uint32
	Threads   uint8
}

// DefaultKDF is RFC 9106's second recommendation: t=3, m=64 MiB, p=4.
var DefaultKDF = KDFParams{Time: 3, MemoryKiB: 64 * 1024, Threads: 4}

// SlotKind says what a key slot needs.
type SlotKind uint8

const (
	SlotPassphrase        SlotKind = 1 // Argon2id(passphrase)
	SlotPassphraseKeyfile SlotKind = 2 // Argon2id(passphrase, keyfile)
)

// SlotSpec describes a key slot to write.
type SlotSpec struct {
	Kind       SlotKind
	Passphrase []byte
	Keyfile    []byte // contents, for SlotPassphraseKeyfile
	KDF        KDFParams
}

// SlotInfo describes a key slot as read from the header.
type SlotInfo struct {
	Kind SlotKind
	KDF  KDFParams
}

// ModelPin records which embedding model produced the vault's vectors.
type ModelPin struct {
	Name   string
	SHA256 [32]byte
	Dim    uint16
}

// Header is the plaintext header, as read.
type Header struct {
	Version   uint16
	VaultID   [16]byte
	Created   time.Time
	Epoch     uint64 // compaction generation, bound into every frame's AAD
	Slots     []SlotInfo
	Pin       ModelPin
	Signature *Signature // nil when unsigned
}

// Signature is the Ed25519 signature over the canonical manifest.
type Signature struct {
	PublicKey ed25519.PublicKey
	Sig       []byte
}

// Unlock says how to obtain the master key: a passphrase (and keyfile), or
// the master key itself from an unlock session.
type Unlock struct {
	Passphrase []byte
	Keyfile    []byte
	MasterKey  []byte
}

// CreateOptions configure [Create].
type CreateOptions struct {
	Slot SlotSpec
	Pin  ModelPin
	Now  time.Time
}

// Stats describe the file.
type Stats struct {
	FileBytes     int64
	HeaderBytes   int64
	PayloadItems  int
	PayloadBytes  int64
	JournalFrames int
	JournalBytes  int64
	Epoch         uint64
}

// TornTail reports a crash-torn last frame that open dropped.
type TornTail struct {
	Offset int64 // where the dropped bytes began
	Bytes  int64 // how many were dropped
}

// VerifyReport is what [Verify] found.
type VerifyReport struct {
	Header        Header
	Frames        int
	TagsChecked   bool // false without an Unlock
	Signed        bool
	SignatureOK   bool
	SignedCurrent bool // the signature covers the file as it is now
	Problems      []string
}

// Vault is an open vault file. Methods are safe for use by one goroutine at
// a time; callers serialise.
type Vault struct{}

// Create writes a new vault at path (mode 0600) with one key slot and
// returns it open. It refuses to overwrite: ErrExists.
func Create(path string, opts CreateOptions, h Handler) (*Vault, error) { panic("unimplemented") }

// Open reads the header, unlocks the master key, replays the payload and the
// journal into h, and returns the open vault. A torn last frame is dropped
// and reported by [Vault.Torn]; any other damage is ErrCorrupt.
func Open(path string, u Unlock, h Handler) (*Vault, error) { panic("unimplemented") }

// ReadHeader reads and validates the plaintext header only; no credential.
func ReadHeader(path string) (Header, error) { panic("unimplemented") }

// Verify checks the structure of every frame and, when sig is present, the
// signature; with u non-nil it also opens every sealed thing.
func Verify(path string, u *Unlock) (VerifyReport, error) { panic("unimplemented") }

// Header returns the header as currently on disk.
func (v *Vault) Header() Header { panic("unimplemented") }

// MasterKey returns a copy of the master key (for an unlock session).
func (v *Vault) MasterKey() []byte { panic("unimplemented") }

// Torn reports the torn tail dropped at open, or nil.
func (v *Vault) Torn() *TornTail { panic("unimplemented") }

// Append catches up with other writers (feeding their changes to the
// handler), then appends one sealed frame per change and fsyncs once. It
// returns only after the fsync; on error nothing was acknowledged and the
// file is as it was. Each OpPut item gets a fresh per-item key.
func (v *Vault) Append(changes []Change) error { panic("unimplemented") }

// Refresh feeds the handler whatever other processes wrote since the last
// look. It is cheap when nothing changed (one stat).
func (v *Vault) Refresh() error { panic("unimplemented") }

// Compact rewrites the file as header + payload of live items: tmp file,
// fsync, rename, fsync of the directory. Deleted items' bytes are gone.
func (v *Vault) Compact() error { panic("unimplemented") }

// Shred deletes the items and compacts at once, so their per-item keys and
// sealed bodies no longer exist in the file.
func (v *Vault) Shred(ids []ID) error { panic("unimplemented") }

// NeedsCompaction reports whether the journal has grown past the threshold.
func (v *Vault) NeedsCompaction() bool { panic("unimplemented") }

// Rekey replaces all key slots at once (new passphrase, adding or removing
// the keyfile factor); the master key and the items stay.
func (v *Vault) Rekey(slots []SlotSpec) error { panic("unimplemented") }

// SetPin records a new model pin in the header (after a re-embed).
func (v *Vault) SetPin(pin ModelPin) error { panic("unimplemented") }

// Sign compacts and adds an Ed25519 signature over the canonical manifest.
func (v *Vault) Sign(key ed25519.PrivateKey) error { panic("unimplemented") }

// Stats describes the file.
func (v *Vault) Stats() Stats { panic("unimplemented") }

// Close releases the file and zeroes the key material.
func (v *Vault) Close() error { panic("unimplemented") }
