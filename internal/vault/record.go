package vault

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// Item kinds stored in the vault file. Part of the format: do not change.
const (
	kindRecord   vaultfmt.Kind = 1
	kindRelation vaultfmt.Kind = 2
	kindAudit    vaultfmt.Kind = 3
)

// Memory kinds.
const (
	KindFact    = "fact"
	KindOpinion = "opinion"
)

// DateLayout is how calendar dates (discovered, expires) are written.
const DateLayout = "2006-01-02"

// Record is one memory: a single claim with its provenance and metadata.
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

	// Vectors are the record's window embeddings (not exported to JSONL).
	Vectors *Vectors `json:"-"`
}

// Provenance is the short clause stamped after the claim, e.g.
// "[web search, 2026-08-01]" or "[from chat, 2026-08-01, expires 2026-09-03]".
func (r *Record) Provenance() string {
	parts := []string{r.Source, r.Discovered}
	if r.Expires != "" {
		parts = append(parts, "expires "+r.Expires)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Stamped is the claim followed by its provenance clause: how a memory is
// shown to agents and people. The clause is kept out of the indexed text.
func (r *Record) Stamped() string {
	return r.Text + " " + r.Provenance()
}

// Live reports whether the record takes part in search.
func (r *Record) Live() bool { return r.SupersededBy == "" }

// newID returns a fresh random record id.
func newID() (vaultfmt.ID, error) {
	var id vaultfmt.ID
	if _, err := rand.Read(id[:]); err != nil {
		return id, fmt.Errorf("vault: random id: %w", err)
	}
	return id, nil
}

// idString is the printed form of an id: 32 lower-case hex digits.
func idString(id vaultfmt.ID) string { return hex.EncodeToString(id[:]) }

// parseID reads a full 32-digit id.
func parseID(s string) (vaultfmt.ID, bool) {
	var id vaultfmt.ID
	if len(s) != 32 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}
