package vault

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestPackFileRoundTrip: WritePackFile signs with the identity key in
// home and writes NAME.mpack; an empty pack is refused before any key is
// made. ReadPackFile refuses the pack until its key is trusted, through
// --trusted-key or the trust list beside the vault, and refuses a file
// larger than any pack without reading it.
func TestPackFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if _, err := WritePackFile(nil, PackMeta{Name: "ops"}, home, ""); !errors.Is(err, ErrEmptyPack) {
		t.Fatalf("empty pack: %v", err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an empty pack made an identity key: %v", err)
	}
	mems := []PackMemory{{Text: "Port 5433 is the staging database", Source: "ops wiki"}}
	out := filepath.Join(dir, "ops.mpack")
	w, err := WritePackFile(mems, PackMeta{Name: "ops", Version: "1.0"}, home, out)
	if err != nil || w.Path != out || w.Version != "1.0" || w.Memories != 1 || len(w.Signer) == 0 {
		t.Fatalf("write: %+v %v", w, err)
	}
	vaultPath := filepath.Join(dir, "memory.vault")
	if _, err := ReadPackFile(out, vaultPath, nil); err == nil || !strings.Contains(err.Error(), "which you do not trust") {
		t.Fatalf("untrusted: %v", err)
	}
	if _, err := ReadPackFile(out, vaultPath, []string{"not hex"}); err == nil {
		t.Fatal("a bad --trusted-key was accepted")
	}
	p, err := ReadPackFile(out, vaultPath, []string{hex.EncodeToString(w.Signer)})
	if err != nil || p.Manifest.Name != "ops" || len(p.Entries) != 1 {
		t.Fatalf("trusted by flag: %+v %v", p, err)
	}
	if err := AddTrustedKey(TrustedKeysPath(vaultPath), w.Signer, "me"); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPackFile(out, vaultPath, nil); err != nil {
		t.Fatalf("trusted by the list: %v", err)
	}
	big := filepath.Join(dir, "big.mpack")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, vaultfmt.MaxPackBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPackFile(big, vaultPath, nil); err == nil || !strings.Contains(err.Error(), "more than any pack can be") {
		t.Fatalf("oversized: %v", err)
	}
}
