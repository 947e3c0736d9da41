package vaultfmt

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"testing"
	"time"
)

// packKey is a fixed test key (seed 0x01…), so fuzz seeds stay valid.
func packKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

func testPack(t testing.TB, key ed25519.PrivateKey, n int) []byte {
	t.Helper()
	var entries [][]byte
	for i := range n {
		entries = append(entries, []byte(fmt.Sprintf(`{"text":"fact %d","source":"test"}`, i)))
	}
	b, err := EncodePack(PackManifest{Name: "ops", Version: "1.0", Created: time.Unix(1_700_000_000, 0), Model: "m"}, entries, key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

func TestPackRoundTrip(t *testing.T) {
	key := packKey(1)
	b := testPack(t, key, 3)
	p, err := DecodePack(b, []ed25519.PublicKey{pub(packKey(9)), pub(key)})
	if err != nil {
		t.Fatal(err)
	}
	m := p.Manifest
	if m.Name != "ops" || m.Version != "1.0" || m.Count != 3 || m.Model != "m" || !m.Created.Equal(time.Unix(1_700_000_000, 0)) || !bytes.Equal(m.Author, pub(key)) {
		t.Errorf("manifest: %+v", m)
	}
	if len(p.Entries) != 3 || string(p.Entries[2]) != `{"text":"fact 2","source":"test"}` {
		t.Errorf("entries: %q", p.Entries)
	}
	again, _ := EncodePack(m, p.Entries, key)
	if !bytes.Equal(again, b) {
		t.Error("re-encoding a decoded pack gives other bytes")
	}
}

func TestPackWrongKeyIsRefused(t *testing.T) {
	author, mallory := packKey(1), packKey(2)
	b := testPack(t, author, 2)
	for name, trusted := range map[string][]ed25519.PublicKey{
		"no trusted keys":      nil,
		"another trusted key":  {pub(mallory)},
		"a malformed key only": {ed25519.PublicKey([]byte{1, 2, 3})},
	} {
		if _, err := DecodePack(b, trusted); !errors.Is(err, ErrPackUntrusted) {
			t.Errorf("%s: err = %v, want ErrPackUntrusted", name, err)
		}
	}
	// Mallory re-signs a pack but keeps the trusted author's key in the
	// manifest: the signature is checked under the trusted key and fails.
	forged := testPack(t, mallory, 2)
	copy(forged[packFixed+2+3+2+3:], pub(author)) // name "ops", version "1.0"
	if _, err := DecodePack(forged, []ed25519.PublicKey{pub(author)}); !errors.Is(err, ErrPackUntrusted) {
		t.Errorf("forged author field: err = %v, want ErrPackUntrusted", err)
	}
}

func TestPackEveryChangedByteIsRefused(t *testing.T) {
	key := packKey(1)
	b := testPack(t, key, 2)
	trusted := []ed25519.PublicKey{pub(key)}
	for i := range b {
		for _, bit := range []byte{0x01, 0x80} {
			c := bytes.Clone(b)
			c[i] ^= bit
			if _, err := DecodePack(c, trusted); err == nil {
				t.Fatalf("byte %d ^ %#x: accepted", i, bit)
			} else if !errors.Is(err, ErrPackCorrupt) && !errors.Is(err, ErrPackUntrusted) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("byte %d: unexpected error class: %v", i, err)
			}
		}
	}
}

func TestPackTruncationAndTrailingBytesAreRefused(t *testing.T) {
	key := packKey(1)
	b := testPack(t, key, 2)
	trusted := []ed25519.PublicKey{pub(key)}
	for n := range len(b) {
		if _, err := DecodePack(b[:n], trusted); !errors.Is(err, ErrPackCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: err = %v, want ErrPackCorrupt", n, len(b), err)
		}
	}
	if _, err := DecodePack(append(bytes.Clone(b), 0), trusted); !errors.Is(err, ErrPackCorrupt) {
		t.Errorf("one trailing byte: err = %v", err)
	}
}

func TestPackNameAndBounds(t *testing.T) {
	key := packKey(1)
	for _, name := range []string{"", "Ops", "../x", "a/b", "-x", string(bytes.Repeat([]byte{'a'}, 65))} {
		if _, err := EncodePack(PackManifest{Name: name}, [][]byte{[]byte("x")}, key); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if _, err := EncodePack(PackManifest{Name: "ok"}, [][]byte{{}}, key); err == nil {
		t.Error("empty entry accepted")
	}
}

// FuzzDecodePack: no input panics, and whatever decodes re-encodes to the
// same bytes (Ed25519 signing is deterministic), so nothing is accepted
// that its author did not write byte for byte.
func FuzzDecodePack(f *testing.F) {
	key := packKey(1)
	f.Add(testPack(f, key, 0))
	f.Add(testPack(f, key, 1))
	f.Add(testPack(f, key, 3))
	f.Add([]byte(packMagic))
	trusted := []ed25519.PublicKey{pub(key)}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePack(b, trusted)
		if _, merr := ReadPackManifest(b); merr != nil && err == nil {
			t.Fatalf("manifest refused (%v) but the pack decoded", merr)
		}
		if err != nil {
			return
		}
		again, err := EncodePack(p.Manifest, p.Entries, key)
		if err != nil {
			t.Fatalf("a decoded pack does not re-encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("a decoded pack re-encodes to other bytes")
		}
	})
}
