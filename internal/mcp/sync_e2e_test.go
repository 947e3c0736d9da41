package mcp_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestServerSyncs: a server whose vault has a sync folder shows it in
// memory_status, logs its stores for the other device, and merges what
// the other device writes while it runs, without being asked.
func TestServerSyncs(t *testing.T) {
	f := newFixture(t)
	folder := filepath.Join(t.TempDir(), "sync")
	unlock := vaultfmt.Unlock{Passphrase: []byte(testPassphrase)}
	v, err := vault.Open(f.vault, vault.Options{Unlock: unlock})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := devsync.Init(v, folder, devsync.SetupOptions{Passphrase: []byte(testPassphrase), KDF: cheapKDF, Name: "server"})
	if err != nil {
		t.Fatal(err)
	}
	s.Detach()
	v.Close()

	other := filepath.Join(t.TempDir(), "other.vault")
	ov, err := vault.Create(other, vault.Options{Unlock: unlock, KDF: cheapKDF})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()
	os2, _, err := devsync.Join(ov, folder, devsync.SetupOptions{Passphrase: []byte(testPassphrase), Name: "laptop"})
	if err != nil {
		t.Fatal(err)
	}
	defer os2.Detach()

	b := startBridge(t)
	b.connect(f.env(true))
	defer b.close()
	var st struct {
		Sync *struct {
			Folder  string `json:"folder"`
			Devices []struct {
				Name string `json:"name"`
				This bool   `json:"this_device"`
			} `json:"devices"`
		} `json:"sync"`
	}
	b.ok("memory_status", nil, &st)
	if st.Sync == nil || st.Sync.Folder != folder || len(st.Sync.Devices) != 2 {
		t.Fatalf("memory_status sync: %+v", st.Sync)
	}
	var stored storeResult
	b.ok("memory_store", map[string]any{"text": "The NAS lives in the hall cupboard", "source": "from chat"}, &stored)
	if _, err := os2.Merge(); err != nil {
		t.Fatal(err)
	}
	if _, err := ov.Get(stored.ID); err != nil {
		t.Fatalf("the other device did not get the server's store: %v", err)
	}
	res, err := ov.Store(vault.StoreRequest{Text: "The printer on floor two jams on A4 paper", Source: "from chat"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := b.call("memory_get", map[string]any{"record_id": res.ID})
		if !r.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never merged the other device's store: %s", r.text())
		}
		time.Sleep(300 * time.Millisecond)
	}
}
