package vault

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

func signedPack(t *testing.T, name, version string, mems []PackMemory) *vaultfmt.Pack {
	t.Helper()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	entries, err := EncodePackEntries(mems)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := vaultfmt.EncodePack(vaultfmt.PackManifest{Name: name, Version: version, Created: time.Unix(1_700_000_000, 0)}, entries, key)
	if err != nil {
		t.Fatal(err)
	}
	p, err := vaultfmt.DecodePack(raw, []ed25519.PublicKey{key.Public().(ed25519.PublicKey)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPackUpgradeReplacesOnlyThatPack(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	mine := h.store(v, StoreRequest{Text: "The ops wiki moved to wiki.example.net"})
	v1 := []PackMemory{{Text: "Deploys happen on Tuesdays", Source: "ops"}, {Text: "The on-call phone is 555-0100", Source: "ops"}}
	if _, err := v.InstallPack(signedPack(t, "ops", "1", v1)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.InstallPack(signedPack(t, "db", "1", []PackMemory{{Text: "The replica lags at most 5 s", Source: "dba"}})); err != nil {
		t.Fatal(err)
	}
	v2 := []PackMemory{v1[0], {Text: "The on-call phone is 555-0199", Source: "ops"}}
	res, err := v.InstallPack(signedPack(t, "ops", "2", v2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Removed != 1 || res.Kept != 1 {
		t.Fatalf("upgrade: %+v", res)
	}
	packs, err := v.Packs()
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) != 2 || packs[1].Name != "ops" || packs[1].Version != "2" || packs[1].Memories != 2 || packs[0].Memories != 1 {
		t.Errorf("packs: %+v", packs)
	}
	if _, err := v.Get(mine.ID); err != nil {
		t.Errorf("the user's memory is gone after a pack upgrade: %v", err)
	}
	// Read-only: the grant table makes packs/* ro even for rw callers.
	if _, err := v.Store(StoreRequest{Text: "x is y", Source: "me", Namespace: "packs/ops"}); !errors.Is(err, ErrDenied) {
		t.Errorf("store into packs/ops: %v", err)
	}
	if _, err := v.RemovePack("ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.RemovePack("ops"); err == nil {
		t.Error("removing a pack twice succeeded")
	}
	st, _ := v.Status()
	if st.PackRecords != 1 || st.OrganicRecords != 1 {
		t.Errorf("after remove: packs %d, organic %d", st.PackRecords, st.OrganicRecords)
	}
}

func TestPackEntryIsStrict(t *testing.T) {
	for _, bad := range []string{
		`{"text":"x"}`,
		`{"source":"y"}`,
		`{"text":"x","source":"y","colour":"red"}`,
		`{"text":"x","source":"y","importance":2}`,
		`{"text":"x","source":"y"} {"text":"z","source":"w"}`,
		`not json`,
	} {
		if _, err := DecodePackEntry([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if m, err := DecodePackEntry([]byte(`{"text":"x","source":"y","tags":["a"],"kind":"opinion","importance":0}`)); err != nil || *m.Importance != 0 || m.Kind != "opinion" {
		t.Errorf("a valid entry: %+v %v", m, err)
	}
}

func TestTrustList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.vault.trusted-keys")
	if keys, err := LoadTrustedKeys(path); err != nil || len(keys) != 0 {
		t.Fatalf("missing list: %v %v", keys, err)
	}
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	if err := AddTrustedKey(path, k, "ops  team"); err != nil {
		t.Fatal(err)
	}
	keys, err := LoadTrustedKeys(path)
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0], k) {
		t.Fatalf("after add: %v %v", keys, err)
	}
	for _, bad := range []string{"", "abcd", string(bytes.Repeat([]byte("zz"), 32))} {
		if _, err := ParsePublicKey(bad); err == nil {
			t.Errorf("ParsePublicKey(%q) accepted", bad)
		}
	}
}
