package capture

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

const testPass = "pending test passphrase"

func testVault(t *testing.T) (string, Opener, *[]string) {
	t.Helper()
	for _, k := range []string{"COMPARTMENT_PASSPHRASE", "COMPARTMENT_VAULT", "COMPARTMENT_MODEL"} {
		t.Setenv(k, "")
	}
	path := filepath.Join(t.TempDir(), "memory.vault")
	v, err := vault.Create(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(testPass)},
		KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	var opened []string
	return path, func(caller string) (*vault.Vault, func(), error) {
		opened = append(opened, caller)
		v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(testPass)}, Caller: caller})
		if err != nil {
			return nil, nil, err
		}
		return v, func() { v.Close() }, nil
	}, &opened
}

func TestPendingList(t *testing.T) {
	path, _, _ := testVault(t)
	at := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	for i, f := range []string{"/a/CLAUDE.md", "/b/CLAUDE.md", "/a/CLAUDE.md"} {
		if err := AddPending(path, f, "claude-code", at.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Pending(path)
	if err != nil || len(files) != 2 || files[0].Path != "/b/CLAUDE.md" || files[1].Path != "/a/CLAUDE.md" || !files[1].At.Equal(at.Add(2*time.Minute)) {
		t.Fatalf("pending %+v, %v", files, err)
	}
	fi, err := os.Stat(PendingPath(path))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pending list mode: %v %v", fi, err)
	}
	b, _ := os.ReadFile(PendingPath(path))
	var doc struct {
		Version int `json:"version"`
		Files   []struct{ Kind, Path, Caller, At string }
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != 2 || doc.Files[0].Kind != "file" || doc.Files[0].Caller != "claude-code" || doc.Files[0].At != "2026-12-01T20:01:00Z" {
		t.Fatalf("the list as FORMAT.md 7.9 gives it:\n%s", b)
	}
	// Bounded: past MaxPending the oldest go.
	full := pendingList{Version: 2}
	for i := range MaxPending {
		full.Files = append(full.Files, PendingFile{Kind: KindFile, Path: "/p/" + strings.Repeat("x", i+1) + "/CLAUDE.md", Caller: "c", At: at})
	}
	b, _ = json.Marshal(full)
	os.WriteFile(PendingPath(path), b, 0o600)
	AddPending(path, "/new/CLAUDE.md", "c", at)
	if files, _ := Pending(path); len(files) != MaxPending || files[0].Path != full.Files[1].Path || files[MaxPending-1].Path != "/new/CLAUDE.md" {
		t.Fatalf("%d entries, want %d with the oldest dropped", len(files), MaxPending)
	}
	// A list that does not parse is reported, never replaced.
	os.WriteFile(PendingPath(path), []byte("{broken"), 0o600)
	if err := AddPending(path, "/c/CLAUDE.md", "c", at); err == nil {
		t.Fatal("a broken list was overwritten")
	}
	if b, _ := os.ReadFile(PendingPath(path)); string(b) != "{broken" {
		t.Fatal("a broken list was changed")
	}
	os.WriteFile(PendingPath(path), []byte(`{"version":3,"files":[]}`), 0o600)
	if _, err := Pending(path); err == nil {
		t.Fatal("version 3 accepted")
	}
}

// TestImportPending: files listed while locked are read as they are at
// unlock, stored as the caller that listed them, and taken off the list;
// a file turned into a link meanwhile is dropped with its reason; a
// caller the opener cannot serve stays listed.
func TestImportPending(t *testing.T) {
	e := testEnv(t)
	path, open, opened := testVault(t)
	at := time.Now()
	a := writeFile(t, filepath.Join(memDir(e), "a.md"), "- We decided to deploy on Tuesdays.\n")
	b := writeFile(t, filepath.Join(e.Home, "work", "CLAUDE.md"), "- Staging listens on port 5433.\n")
	gone := filepath.Join(memDir(e), "gone.md")
	for _, f := range []string{a, b, gone} {
		if err := AddPending(path, f, "claude-code", at); err != nil {
			t.Fatal(err)
		}
	}
	AddPending(path, b, "other-agent", at)
	// Written again after it was listed: the newest content is stored.
	writeFile(t, a, "- We decided to deploy on Thursdays.\n")

	res, err := ImportPending(path, e, func(caller string) (*vault.Vault, func(), error) {
		if caller != "claude-code" {
			return nil, nil, ErrCallerUnavailable
		}
		return open(caller)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Stored != 2 || res.Left != 1 || len(res.Skipped) != 1 || res.Skipped[0].Path != gone {
		t.Fatalf("result %+v", res)
	}
	files, _ := Pending(path)
	if len(files) != 1 || files[0].Caller != "other-agent" {
		t.Fatalf("left on the list: %+v", files)
	}
	v, release, err := open("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	got := map[string]vault.Record{}
	recent, err := v.Recent(vault.RecentRequest{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recent {
		got[strings.SplitN(r.Text, " [", 2)[0]] = *r
	}
	if r, ok := got["We decided to deploy on Thursdays."]; !ok || r.Caller != "claude-code" || r.Source != FileSource(a) || r.Importance != Decision {
		t.Fatalf("stored: %+v", got)
	}
	if _, ok := got["We decided to deploy on Tuesdays."]; ok {
		t.Fatal("the old content was stored")
	}
	if _, ok := got["Staging listens on port 5433."]; !ok {
		t.Fatalf("stored: %+v", got)
	}
	// Once more: nothing listed for this caller, nothing opened.
	*opened = nil
	os.Remove(PendingPath(path))
	if res, err := ImportPending(path, e, open); err != nil || res.Files != 0 || len(*opened) != 0 {
		t.Fatalf("an empty list opened the vault: %+v %v %v", res, err, *opened)
	}
	if _, err := os.Stat(PendingPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an empty list left a file")
	}
}
