package api

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(m))
}

// TestLockedStatusSaysOnlyTheHeader: a locked status carries exactly the
// four fields the plaintext header and the file size give (the panel and
// cmd/compartment's tests read them).
func TestLockedStatusSaysOnlyTheHeader(t *testing.T) {
	got := keys(t, LockedStatus("/v", 4096, true))
	if want := []string{"file_bytes", "keyfile_required", "locked", "path"}; !slices.Equal(got, want) {
		t.Fatalf("locked status fields %v, want %v", got, want)
	}
}

// TestStatusOfRoundTrip: an open vault's status keeps every field of
// vault.Status under its own name, says whether the keyfile is needed from
// the key slots, and decodes back (as the panel decodes it).
func TestStatusOfRoundTrip(t *testing.T) {
	st := vault.Status{Path: "/v", FormatVersion: 2, VaultID: "ab12", Live: 7, OrganicRecords: 5, FileBytes: 99,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Slots:   []vault.SlotStatus{{Kind: vault.SlotKindKeyfile}, {Kind: vault.SlotKindKeyfile}}}
	st.ReferenceRecords, st.PackRecords = 1, 1
	out := StatusOf(st)
	if !out.KeyfileRequired || out.Locked || out.Path != "/v" || out.FileBytes != 99 {
		t.Fatalf("%+v", out)
	}
	got := keys(t, out)
	for _, k := range append(keys(t, st), "keyfile_required") {
		if !slices.Contains(got, k) {
			t.Errorf("status --json lost %q (has %v)", k, got)
		}
	}
	b, _ := json.Marshal(out)
	var back Status
	if err := json.Unmarshal(b, &back); err != nil || back.Status == nil {
		t.Fatalf("decode: %v %+v", err, back)
	}
	if back.Live != 7 || back.OrganicRecords != 5 || back.ReferenceRecords != 1 || back.PackRecords != 1 || back.Path != "/v" || !back.KeyfileRequired {
		t.Fatalf("decoded %+v / %+v", back, *back.Status)
	}
	st.Slots = append(st.Slots, vault.SlotStatus{Kind: vault.SlotKindPassphrase})
	if StatusOf(st).KeyfileRequired {
		t.Error("a passphrase-only slot opens the vault, but keyfile_required is true")
	}
	st.Slots = nil
	if StatusOf(st).KeyfileRequired {
		t.Error("no slots, but keyfile_required is true")
	}
}

// TestUnlockedOf: the session's state under unlock --json's names.
func TestUnlockedOf(t *testing.T) {
	u := UnlockedOf(session.Unlocked{State: session.State{Unlocked: true, Once: true, AutoLock: 90 * time.Second},
		Already: true, Credential: "/run/c"})
	if !u.Unlocked || !u.Already || !u.Once || u.AutoLockSeconds != 90 || u.Credential != "/run/c" {
		t.Fatalf("%+v", u)
	}
	if got, want := keys(t, u), []string{"already", "auto_lock_seconds", "credential", "once", "unlocked"}; !slices.Equal(got, want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
}

// TestStoreOfNoticeOnlyWithConflicts: a store's result carries the data
// notice only when it returns recalled content (conflicts), and a
// quarantined conflict carries its warning.
func TestStoreOfNoticeOnlyWithConflicts(t *testing.T) {
	if s := StoreOf(vault.StoreResult{Stored: true, ID: "x"}); s.Notice != "" || s.Conflicts != nil || !s.Stored {
		t.Fatalf("plain store: %+v", s)
	}
	r := &vault.Record{ID: "c1", Text: "Lena likes tea", Source: "from chat", Discovered: "2026-01-02", Quarantined: true,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))}
	s := StoreOf(vault.StoreResult{Conflicts: []*vault.Record{r}})
	if s.Notice != vault.DataNotice || len(s.Conflicts) != 1 {
		t.Fatalf("conflict: %+v", s)
	}
	m := s.Conflicts[0]
	if m.Warning != vault.QuarantineWarning || m.Created != "2026-01-02T02:04:05Z" || m.Text != r.Stamped() || m.Tags == nil || !m.Live {
		t.Fatalf("conflict memory: %+v", m)
	}
}
