package mcp_test

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestPacksAreReadOnlyOverMCP: an installed pack is found by memory_search,
// and no agent can store into packs/*, forget a pack memory or supersede
// one, whatever its grants say.
func TestPacksAreReadOnlyOverMCP(t *testing.T) {
	f := newFixture(t)
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	entries, err := vault.EncodePackEntries([]vault.PackMemory{{Text: "The VPN gateway of the Berlin office is vpn-ber.example.net", Source: "ops handbook"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := vaultfmt.EncodePack(vaultfmt.PackManifest{Name: "ops", Version: "1", Created: time.Unix(1_700_000_000, 0)}, entries, key)
	if err != nil {
		t.Fatal(err)
	}
	p, err := vaultfmt.DecodePack(raw, []ed25519.PublicKey{key.Public().(ed25519.PublicKey)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(f.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(testPassphrase)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.InstallPack(p); err != nil {
		t.Fatal(err)
	}
	v.Close()
	// Even a caller granted rw on everything, packs/* included.
	cfg, err := vault.LoadConfig(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grants["claude"] = map[string]vault.Access{"*": vault.AccessRW, "packs/*": vault.AccessRW}
	if err := cfg.Save(f.vault); err != nil {
		t.Fatal(err)
	}

	b := startBridge(t)
	b.connect(f.env(true), "--caller", "claude")
	defer b.close()
	var s searchResult
	b.ok("memory_search", map[string]any{"query": "VPN gateway of the Berlin office"}, &s)
	if len(s.Results) == 0 || s.Results[0].Namespace != "packs/ops" {
		t.Fatalf("search: %+v", s.Results)
	}
	id := s.Results[0].ID
	b.fails("memory_store", map[string]any{"text": "The VPN gateway moved to vpn2", "source": "chat", "namespace": "packs/ops"})
	b.fails("memory_store", map[string]any{"text": "The VPN gateway moved to vpn2", "source": "chat", "supersedes": []string{id}})
	b.fails("memory_forget", map[string]any{"record_id": id})
	var again searchResult
	b.ok("memory_search", map[string]any{"query": "VPN gateway of the Berlin office"}, &again)
	if len(again.Results) == 0 || again.Results[0].ID != id {
		t.Errorf("the pack memory changed after refused writes: %+v", again.Results)
	}
}

// TestReferenceOnlySearchOverMCP: reference_only returns the reference
// facts and none of the user's own memories.
func TestReferenceOnlySearchOverMCP(t *testing.T) {
	f := newFixture(t)
	v, err := vault.Open(f.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(testPassphrase)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.LoadReference([]vault.BulkFact{{Text: "Port 22/tcp is registered to the ssh service.", Source: "Debian netbase 6.4, /etc/services"}}, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Store(vault.StoreRequest{Text: "The ssh key for the NAS is in the blue folder", Source: "chat"}); err != nil {
		t.Fatal(err)
	}
	v.Close()
	b := startBridge(t)
	b.connect(f.env(true))
	defer b.close()
	var s searchResult
	b.ok("memory_search", map[string]any{"query": "ssh", "top_k": 5, "reference_only": true}, &s)
	if len(s.Results) != 1 || !strings.HasPrefix(s.Results[0].Text, "Port 22/tcp") {
		t.Errorf("reference_only: %+v", s.Results)
	}
	b.ok("memory_search", map[string]any{"query": "ssh", "top_k": 5, "include_reference": false}, &s)
	for _, h := range s.Results {
		if strings.HasPrefix(h.Text, "Port 22/tcp") {
			t.Errorf("include_reference=false returned the reference fact")
		}
	}
}
