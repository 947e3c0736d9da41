// Package shape holds the JSON shapes the CLI prints that another binary
// decodes: the panel drives the CLI and reads its `--json` output into
// these. It imports nothing of the vault, the model or the search engine,
// so a program that only decodes them stays small (the panel binary went
// from 14 MB to 47 MB when it took these shapes from the packages that
// compute them). The packages that fill them name them by alias
// (vault.Status, api.Status, capture.HookState), so the JSON field names
// have one definition.
package shape

import (
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// The kinds of key slot a status names.
const (
	SlotKindPassphrase = "passphrase"
	SlotKindKeyfile    = "passphrase+keyfile" // two-factor unlock
)

// SlotStatus describes one key slot.
type SlotStatus struct {
	Kind      string `json:"kind"` // passphrase | passphrase+keyfile
	Time      uint32 `json:"argon2_time"`
	MemoryKiB uint32 `json:"argon2_memory_kib"`
	Threads   uint8  `json:"argon2_threads"`
}

// ModelStatus is the model pin and the model loaded.
type ModelStatus struct {
	Pinned       string `json:"pinned"`
	PinnedSHA256 string `json:"pinned_sha256,omitempty"`
	Dim          int    `json:"dim"`
	Loaded       string `json:"loaded,omitempty"`
	// Unembedded counts records without vectors from the loaded model:
	// `compartment reindex` embeds them.
	Unembedded int `json:"unembedded"`
}

// Status is what `compartment status` and memory_status report of an
// open vault (vault.Status).
type Status struct {
	Path           string             `json:"path"`
	Locked         bool               `json:"locked"`
	FormatVersion  uint16             `json:"format_version"`
	VaultID        string             `json:"vault_id"`
	Created        time.Time          `json:"created"`
	Records        int                `json:"records"`         // every record, superseded included
	Live           int                `json:"live"`            // in search
	OrganicRecords int                `json:"organic_records"` // live, not reference facts or packs
	Superseded     int                `json:"superseded"`
	Relations      int                `json:"relations"`
	AuditEntries   int                `json:"audit_entries"`
	AuditHead      string             `json:"audit_head"`
	Namespaces     int                `json:"namespaces"`
	Slots          []SlotStatus       `json:"slots"`
	Model          ModelStatus        `json:"model"`
	FileBytes      int64              `json:"file_bytes"`
	PayloadItems   int                `json:"payload_items"`
	JournalFrames  int                `json:"journal_frames"`
	JournalBytes   int64              `json:"journal_bytes"`
	Epoch          uint64             `json:"epoch"`
	Signed         bool               `json:"signed"`
	TornTail       *vaultfmt.TornTail `json:"torn_tail,omitempty"`
	Caller         string             `json:"caller"`

	// ReferenceRecords and PackRecords count the live reference facts and
	// the live memories of installed packs (packs/*).
	ReferenceRecords int `json:"reference_records"`
	PackRecords      int `json:"pack_records"`
}

// StatusJSON is `status --json` (api.Status), for a locked vault and an open
// one alike: a locked vault tells only its path, its size and whether
// unlocking needs the keyfile (the plaintext header says so); an open one
// adds the vault's own status (counts, format, key slots, model) beside
// them.
type StatusJSON struct {
	Path            string `json:"path"`
	Locked          bool   `json:"locked"`
	FileBytes       int64  `json:"file_bytes"`
	KeyfileRequired bool   `json:"keyfile_required"`
	*Status                // nil while locked
}

// HookState is the capture hook as `hook status --json` reports it
// (capture.HookState): where it is installed, and what waits for the next
// unlock.
type HookState struct {
	Installed     bool          `json:"installed"`
	Commands      []string      `json:"commands"` // the hook's command lines in Claude Code's settings
	Settings      string        `json:"settings"`
	VaultUnlocked bool          `json:"vault_unlocked"` // so what Claude Code writes is stored at once
	Pending       int           `json:"pending"`
	PendingList   string        `json:"pending_list"`
	Waiting       []PendingFile `json:"-"`
}

// PendingFile is one entry waiting to be imported (capture.PendingFile):
// a memory file, or a turn (Kind "turn": Path is its transcript, Turn the
// user message's id).
type PendingFile struct {
	Kind   string    `json:"kind"`
	Path   string    `json:"path"`
	Turn   string    `json:"turn,omitempty"`
	Caller string    `json:"caller"`
	At     time.Time `json:"at"`
}

// Record is one record as `recent --json` and `get --json` print it: the
// JSON fields of vault.Record, which also holds the vectors (never
// printed) and the methods. vault's TestRecordShape fails when the two
// differ in a field name or type.
type Record struct {
	ID           string    `json:"id"`
	Text         string    `json:"text"`
	Source       string    `json:"source"`
	Discovered   string    `json:"discovered"` // YYYY-MM-DD, when the fact was learned
	Created      time.Time `json:"created"`    // when it was stored
	Namespace    string    `json:"namespace"`
	Tags         []string  `json:"tags"`
	TagsOrigin   []string  `json:"tags_origin,omitempty"` // the tags given at store time
	Importance   float64   `json:"importance"`
	Kind         string    `json:"kind"`
	Expires      string    `json:"expires,omitempty"` // YYYY-MM-DD, last day it is true
	Supersedes   []string  `json:"supersedes,omitempty"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	SplitInto    []string  `json:"split_into,omitempty"` // atomize: the pieces that replaced it
	Quarantined  bool      `json:"quarantined"`
	Caller       string    `json:"caller"`
	Affirmed     time.Time `json:"affirmed,omitzero"` // opinions: last (re)affirmation
	Reference    bool      `json:"reference,omitempty"`
	Seq          uint64    `json:"seq"` // write order within this vault
}
