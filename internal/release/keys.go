package release

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A release private key file is one line, "compartment release key v1 "
// followed by the 32-byte Ed25519 seed in hex; the public key file beside
// it (<path>.pub) is the 32-byte public key in hex on one line.
// Part of the format: do not change.
const keyFileTag = "compartment release key v1 "

// ErrUntrusted means a signature is valid but made by a key this build
// does not trust, or there is no trusted key at all.
var ErrUntrusted = errors.New("release: not signed by a trusted release key")

// ErrBadSignature means a signature, or the file it covers, is not what
// the key signed: damaged, tampered with, or for another file.
var ErrBadSignature = errors.New("release: signature does not verify")

// GenerateKey writes a new private key to path (mode 0600) and its public
// key to path.pub, refusing to overwrite either.
func GenerateKey(path string) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("release: generate key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("release: generate key: %w", err)
	}
	line := keyFileTag + hex.EncodeToString(priv.Seed()) + "\n"
	if err := writeNew(path, []byte(line), 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(path+".pub", []byte(FormatKey(pub)+"\n"), 0o644); err != nil {
		return nil, err
	}
	return pub, nil
}

func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("release: write %s: %w", path, err)
	}
	return f.Close()
}

// LoadPrivateKey reads a private key file.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("release: read key: %w", err)
	}
	rest, ok := strings.CutPrefix(strings.TrimRight(string(raw), "\r\n"), keyFileTag)
	seed, err := hex.DecodeString(rest)
	if !ok || err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("release: %s is not a release private key", path)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// ParseKey reads a public key in hex (64 digits; surrounding space
// ignored).
func ParseKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("release: %q is not an Ed25519 public key in hex", strings.TrimSpace(s))
	}
	return ed25519.PublicKey(b), nil
}

// LoadPublicKey reads a public key file (one line of hex).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("release: read public key: %w", err)
	}
	return ParseKey(string(raw))
}

// FormatKey is a public key in lowercase hex.
func FormatKey(pub ed25519.PublicKey) string { return hex.EncodeToString(pub) }

// trusted reports whether pub is one of keys.
func trusted(pub ed25519.PublicKey, keys []ed25519.PublicKey) bool {
	for _, k := range keys {
		if bytes.Equal(k, pub) {
			return true
		}
	}
	return false
}
