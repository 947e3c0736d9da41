package vaultfmt

import (
	"bytes"
	"crypto/rand"
	"fmt"
)

// SealSelfTest seals random bytes under a fresh key with this build's
// AEAD, opens them, and checks that a changed ciphertext byte, a changed
// AAD and a wrong key are each refused: the primitive every sealed byte of
// a vault depends on, checked on this machine.
func SealSelfTest() error {
	key := make([]byte, keySize)
	other := make([]byte, keySize)
	msg := make([]byte, 1000)
	for _, b := range [][]byte{key, other, msg} {
		if _, err := rand.Read(b); err != nil {
			return fmt.Errorf("vaultfmt: self-test: %w", err)
		}
	}
	aad := []byte("compartment selftest")
	sealed, err := seal(nil, key, rand.Reader, msg, aad)
	if err != nil {
		return err
	}
	if len(sealed) != len(msg)+sealOverhead {
		return fmt.Errorf("vaultfmt: self-test: sealed %d bytes into %d, want %d", len(msg), len(sealed), len(msg)+sealOverhead)
	}
	pt, err := open(key, sealed, aad)
	if err != nil || !bytes.Equal(pt, msg) {
		return fmt.Errorf("vaultfmt: self-test: a sealed message does not open to itself")
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)/2] ^= 1
	if _, err := open(key, flipped, aad); err == nil {
		return fmt.Errorf("vaultfmt: self-test: a changed ciphertext byte was accepted")
	}
	if _, err := open(key, sealed, []byte("another role")); err == nil {
		return fmt.Errorf("vaultfmt: self-test: a changed AAD was accepted")
	}
	if _, err := open(other, sealed, aad); err == nil {
		return fmt.Errorf("vaultfmt: self-test: the wrong key was accepted")
	}
	return nil
}
