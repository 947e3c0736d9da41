package vault

import (
	"encoding/hex"
	"fmt"

	"github.com/compartment/compartment/internal/shape"
	"github.com/compartment/compartment/vaultfmt"
)

// The kinds of key slot a status names.
const (
	SlotKindPassphrase = shape.SlotKindPassphrase
	SlotKindKeyfile    = shape.SlotKindKeyfile // two-factor unlock
)

// SlotStatus describes one key slot.
type SlotStatus = shape.SlotStatus

// ModelStatus is the model pin and the model loaded.
type ModelStatus = shape.ModelStatus

// Status is what `compartment status` and memory_status report. The shape
// lives in internal/shape so the panel decodes it without this package.
type Status = shape.Status

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
	v.st.records.facets(func(r facet) {
		s.Records++
		namespaces[r.Namespace] = true
		if !r.Live {
			s.Superseded++
			return
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
	})
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
