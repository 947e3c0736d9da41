package vault

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/compartment/compartment/vaultfmt"
)

// Rekey replaces the passphrase: every key slot is rewritten at once. A
// vault with the keyfile factor keeps it (keyfile must be given).
func (v *Vault) Rekey(newPass, keyfile []byte, kdf vaultfmt.KDFParams) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file == nil {
		return ErrLocked
	}
	if kdf == (vaultfmt.KDFParams{}) {
		kdf = vaultfmt.DefaultKDF
	}
	slot := vaultfmt.SlotSpec{Kind: vaultfmt.SlotPassphrase, Passphrase: newPass, KDF: kdf}
	for _, s := range v.file.Header().Slots {
		if s.Kind == vaultfmt.SlotPassphraseKeyfile {
			if len(keyfile) == 0 {
				return fmt.Errorf("rekey: this vault has two-factor unlock: pass its keyfile with --keyfile")
			}
			slot.Kind, slot.Keyfile = vaultfmt.SlotPassphraseKeyfile, keyfile
		}
	}
	if err := v.file.Rekey([]vaultfmt.SlotSpec{slot}); err != nil {
		return fmt.Errorf("rekey %s: %w (the old passphrase still works)", v.path, err)
	}
	return nil
}

// EnableKeyfile adds the keyfile factor: every key slot is rewritten at
// once as passphrase+keyfile for pass, keeping the slots' Argon2id
// parameters. The caller must have opened v with pass itself (a session
// key proves nothing about the passphrase): the slots get whatever pass is.
func (v *Vault) EnableKeyfile(pass, keyfile []byte) error {
	if len(keyfile) == 0 {
		return invalidf("two-factor unlock needs keyfile contents")
	}
	return v.setSlots(pass, keyfile)
}

// DisableKeyfile removes the keyfile factor: every key slot is rewritten
// at once for pass alone. The caller must have opened v with pass and the
// keyfile.
func (v *Vault) DisableKeyfile(pass []byte) error { return v.setSlots(pass, nil) }

// setSlots rewrites all key slots for pass (and keyfile, when given) with
// the current slot's KDF parameters.
func (v *Vault) setSlots(pass, keyfile []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file == nil {
		return ErrLocked
	}
	kdf := vaultfmt.DefaultKDF
	if slots := v.file.Header().Slots; len(slots) > 0 {
		kdf = slots[0].KDF
	}
	slot := vaultfmt.SlotSpec{Kind: vaultfmt.SlotPassphrase, Passphrase: pass, KDF: kdf}
	if len(keyfile) > 0 {
		slot.Kind, slot.Keyfile = vaultfmt.SlotPassphraseKeyfile, keyfile
	}
	if err := v.file.Rekey([]vaultfmt.SlotSpec{slot}); err != nil {
		return fmt.Errorf("rewrite key slots of %s: %w (nothing changed)", v.path, err)
	}
	return nil
}

// Flush compacts the file: the journal is folded into the payload. A
// read-only handle wrote nothing and leaves the file alone.
func (v *Vault) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file == nil {
		return ErrLocked
	}
	if v.readOnly {
		return nil
	}
	if err := v.file.Compact(); err != nil {
		return fmt.Errorf("compact %s: %w (your data is safe in the journal)", v.path, err)
	}
	return nil
}

// Sign compacts the vault and signs its manifest with key.
func (v *Vault) Sign(key ed25519.PrivateKey) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file == nil {
		return ErrLocked
	}
	if err := v.file.Sign(key); err != nil {
		return fmt.Errorf("sign %s: %w", v.path, err)
	}
	return nil
}

// identityFile is the user's Ed25519 signing key: the 32-byte seed, mode
// 0600 (FORMAT.md §7).
const identityFile = "identity.ed25519"

// LoadIdentity returns the signing key kept in dir (normally
// ~/.compartment), creating it on first use.
func LoadIdentity(dir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(dir, identityFile)
	seed, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, fmt.Errorf("create identity key: %w", err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create identity key: %w", err)
		}
		if err := writeFileAtomic(path, seed, 0o600); err != nil {
			return nil, fmt.Errorf("create identity key: %w", err)
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read identity key %s: %w", path, err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("identity key %s is %d bytes, want %d: it is damaged", path, len(seed), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// Fingerprint is a short printable name for a public key.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}
