package vault

import (
	"encoding/hex"
	"fmt"
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

// Status is what `compartment status` and memory_status report.
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

// Status describes the open vault.
func (v *Vault) Status() (Status, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return Status{}, err
	}
	h := v.file.Header()
	st := v.file.Stats()
	s := Status{
		Path: v.path, FormatVersion: h.Version, VaultID: hex.EncodeToString(h.VaultID[:]),
		Created: h.Created, Relations: len(v.st.relations), AuditEntries: v.st.audit.len(),
		FileBytes: st.FileBytes, PayloadItems: st.PayloadItems, JournalFrames: st.JournalFrames,
		JournalBytes: st.JournalBytes, Epoch: st.Epoch, Signed: h.Signature != nil,
		TornTail: v.file.Torn(), Caller: v.caller,
	}
	if v.st.audit.headOK {
		s.AuditHead = hex.EncodeToString(v.st.audit.headHash[:8])
	}
	namespaces := map[string]bool{}
	for _, r := range v.st.records {
		s.Records++
		namespaces[r.Namespace] = true
		if !r.Live() {
			s.Superseded++
			continue
		}
		s.Live++
		switch {
		case r.Reference:
			s.ReferenceRecords++
		case isPack(r.Namespace):
			s.PackRecords++
		default:
			s.OrganicRecords++
		}
	}
	s.Namespaces = len(namespaces)
	for _, sl := range h.Slots {
		kind := SlotKindPassphrase
		if sl.Kind == vaultfmt.SlotPassphraseKeyfile {
			kind = SlotKindKeyfile
		}
		s.Slots = append(s.Slots, SlotStatus{Kind: kind, Time: sl.KDF.Time, MemoryKiB: sl.KDF.MemoryKiB, Threads: sl.KDF.Threads})
	}
	s.Model = ModelStatus{Pinned: h.Pin.Name, Dim: int(h.Pin.Dim)}
	if h.Pin.Name != "" {
		s.Model.PinnedSHA256 = hex.EncodeToString(h.Pin.SHA256[:])
	}
	if v.enc != nil {
		s.Model.Loaded = v.enc.Info().Name
		s.Model.Unembedded = v.unembedded()
	}
	return s, nil
}

// AuditVerify checks the hash chain.
func (v *Vault) AuditVerify() (AuditReport, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return AuditReport{}, err
	}
	return v.st.auditReport(), nil
}

// AuditRepair re-anchors the chain after breaks the user has been shown
// and understood: it appends an anchor entry that acknowledges them, so
// later verifies pass while the breaks stay on record.
func (v *Vault) AuditRepair() (AuditReport, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return AuditReport{}, err
	}
	rep := v.st.auditReport()
	if rep.OK {
		return rep, nil
	}
	err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		// Items written around the chain are adopted: an entry now names
		// each, so the gap stays on record and later checks pass.
		for _, id := range rep.Unaudited {
			b.logAudit("adopt", id)
		}
		if len(rep.Breaks) > 0 {
			e := b.audit.next(v.now(), v.caller, "anchor", "")
			for _, br := range rep.Breaks {
				e.Acknowledged = append(e.Acknowledged, br.Seq)
			}
			e.Hash = e.computeHash()
			b.appendAudit(e)
		}
		return b.changes, nil
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("audit repair: %w", err)
	}
	return v.st.auditReport(), nil
}
