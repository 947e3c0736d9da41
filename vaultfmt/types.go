package vaultfmt

import (
	"crypto/ed25519"
	"io"
	"time"
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

// Op is what a change does. Part of the format: do not change the values.
type Op uint8

const (
	OpPut    Op = 1 // insert or replace the item with this ID
	OpDelete Op = 2 // tombstone: the item is gone (Body empty)
)

// Change is one replayed or appended event.
type Change struct {
	Op   Op
	Item Item
	// Covered: a payload put the handler's [Skipper] reported, passed
	// without its body (Item.Body is nil); Cover is the number its
	// predicate returned for it.
	Covered bool
	Cover   uint32
}

// Handler receives the vault's contents: on open, on refresh, and before an
// append when other processes have written since. It never receives the
// changes its own process passes to [Vault.Append]: the caller applies those
// itself once Append has returned.
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

// SlotKind says what a key slot needs. Part of the format: do not change the
// values.
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
	// Derived is the kind of the payload's derived items (FORMAT.md
	// §2.11); 0 when it has none.
	Derived Kind
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

	// rand replaces crypto/rand for every random byte the vault draws
	// (vault id, master key, salts, nonces, item keys). Only the golden
	// example sets it, to make its bytes reproducible.
	rand io.Reader
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
	LiveItems     int   // items alive now (payload and journal together)
	TornBytes     int64 // bytes of a crash-torn tail not yet truncated
}

// TornTail reports a crash-torn last frame that open dropped.
type TornTail struct {
	Offset int64 // where the dropped bytes began
	Bytes  int64 // how many were dropped
}

// VerifyReport is what [Verify] found.
type VerifyReport struct {
	Header        Header
	Frames        int  // complete frames checked: payload (with its end marker) and journal
	TagsChecked   bool // false without an Unlock
	Signed        bool
	SignatureOK   bool
	SignedCurrent bool // the signature covers the file as it is now
	Problems      []string

	JournalFrames int       // of Frames, how many are journal frames
	Items         int       // live items; counted only when TagsChecked
	Torn          *TornTail // a crash-torn tail that an open would drop
}
