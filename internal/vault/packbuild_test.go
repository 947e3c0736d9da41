package vault

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestPackBuildRoundTrip: a JSONL source read, signed and decoded again
// with the author's key gives back the same memories and the manifest
// asked for; the decoded pack is refused without that key, in a sentence
// that names the key and the command that trusts it.
func TestPackBuildRoundTrip(t *testing.T) {
	src := `{"text": "Port 5433 is the staging database", "source": "ops wiki"}

{"text": "Backups run at 02:00", "source": "ops wiki", "tags": ["backup"]}
`
	mems, err := ReadPackJSONL(strings.NewReader(src), "ops.jsonl")
	if err != nil || len(mems) != 2 {
		t.Fatalf("ReadPackJSONL: %d memories, %v", len(mems), err)
	}
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	b, version, err := SignPack(mems, PackMeta{Name: "ops"}, key)
	if err != nil || !strings.HasPrefix(version, "20") || len(version) != len("2006.01.02") {
		t.Fatalf("SignPack: version %q, %v", version, err)
	}
	pub := key.Public().(ed25519.PublicKey)
	p, err := vaultfmt.DecodePack(b, []ed25519.PublicKey{pub})
	if err != nil {
		t.Fatal(err)
	}
	if p.Manifest.Name != "ops" || p.Manifest.Version != version || len(p.Entries) != 2 {
		t.Errorf("manifest %+v, %d entries", p.Manifest, len(p.Entries))
	}
	got, err := DecodePackEntry(p.Entries[1])
	if err != nil || got.Text != mems[1].Text || got.Source != "ops wiki" {
		t.Errorf("entry 1: %+v %v", got, err)
	}
	if _, v, _ := SignPack(mems, PackMeta{Name: "ops", Version: "2.0"}, key); v != "2.0" {
		t.Errorf("a given version was replaced: %q", v)
	}
	_, err = vaultfmt.DecodePack(b, nil)
	msg := PackRefusal("ops.mpack", b, err).Error()
	if !strings.Contains(msg, "which you do not trust") || !strings.Contains(msg, "compartment pack trust "+hex.EncodeToString(pub)) {
		t.Errorf("untrusted refusal: %s", msg)
	}
	b[len(b)-1] ^= 1
	_, err = vaultfmt.DecodePack(b, []ed25519.PublicKey{pub})
	if msg := PackRefusal("ops.mpack", b, err).Error(); !strings.Contains(msg, "damaged, truncated or was changed") {
		t.Errorf("corrupt refusal: %s", msg)
	}
	if _, _, err := SignPack(nil, PackMeta{Name: "ops"}, key); !errors.Is(err, ErrEmptyPack) {
		t.Errorf("empty pack: %v", err)
	}
}

// TestReadPackJSONLNamesTheLine: a bad line is refused by its number.
func TestReadPackJSONLNamesTheLine(t *testing.T) {
	src := "{\"text\": \"One\", \"source\": \"s\"}\n{\"Text\": \"Two\"}\n"
	if _, err := ReadPackJSONL(strings.NewReader(src), "p.jsonl"); err == nil || !strings.Contains(err.Error(), "p.jsonl line 2") {
		t.Errorf("bad line 2: %v", err)
	}
	long := `{"text": "` + strings.Repeat("x", maxPackLine) + `", "source": "s"}`
	if _, err := ReadPackJSONL(strings.NewReader(long), "p.jsonl"); err == nil || !strings.Contains(err.Error(), "read p.jsonl") {
		t.Errorf("a line past the limit: %v", err)
	}
}
