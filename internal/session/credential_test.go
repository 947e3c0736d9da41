package session

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func testBinding() binding {
	return binding{bootID: "2c6f0a6e-3b1d-4a43-9f57-0d5a4a8f1e01", uid: 1000, vaultID: [16]byte{1, 2, 3}, path: "/home/u/.compartment/memory.vault"}
}

func testSecret() []byte { return bytes.Repeat([]byte{7}, secretSize) }

func TestCredentialRoundTrip(t *testing.T) {
	master := bytes.Repeat([]byte{0xAB}, masterSize)
	created := time.Unix(1700000000, 123)
	for _, once := range []bool{false, true} {
		data, err := sealCredential(testSecret(), testBinding(), credential{master: master, once: once, created: created})
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != credSize {
			t.Fatalf("credential is %d bytes, want %d", len(data), credSize)
		}
		c, err := openCredential(testSecret(), testBinding(), data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.master, master) || c.once != once || !c.created.Equal(created) {
			t.Fatalf("opened %+v, want master, once=%v, created %v", c, once, created)
		}
	}
}

// TestCredentialBinding: a credential opens only for the boot, user, vault
// and path it was made for, under the secret of its boot.
func TestCredentialBinding(t *testing.T) {
	master := bytes.Repeat([]byte{0xAB}, masterSize)
	data, err := sealCredential(testSecret(), testBinding(), credential{master: master, created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]func(b *binding, secret []byte) []byte{
		"boot id":  func(b *binding, s []byte) []byte { b.bootID = "another boot"; return s },
		"uid":      func(b *binding, s []byte) []byte { b.uid = 1001; return s },
		"vault id": func(b *binding, s []byte) []byte { b.vaultID[15] = 9; return s },
		"path":     func(b *binding, s []byte) []byte { b.path += "2"; return s },
		"secret":   func(b *binding, s []byte) []byte { s[0] ^= 1; return s },
	}
	for name, change := range other {
		b := testBinding()
		secret := change(&b, testSecret())
		if _, err := openCredential(secret, b, data); !errors.Is(err, errBadCredential) {
			t.Errorf("another %s: got %v, want errBadCredential", name, err)
		}
	}
}

// TestCredentialTamper flips every bit of the file: each flip must fail.
func TestCredentialTamper(t *testing.T) {
	master := bytes.Repeat([]byte{0xAB}, masterSize)
	data, err := sealCredential(testSecret(), testBinding(), credential{master: master, created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		for bit := 0; bit < 8; bit++ {
			bad := bytes.Clone(data)
			bad[i] ^= 1 << bit
			if _, err := openCredential(testSecret(), testBinding(), bad); err == nil {
				t.Fatalf("flipping bit %d of byte %d went unnoticed", bit, i)
			}
		}
	}
	for _, n := range []int{0, 8, credSize - 1} {
		if _, err := openCredential(testSecret(), testBinding(), data[:n]); err == nil {
			t.Fatalf("a credential cut to %d bytes opened", n)
		}
	}
	if _, err := openCredential(testSecret(), testBinding(), append(bytes.Clone(data), 0)); err == nil {
		t.Fatal("a credential with a byte appended opened")
	}
}
