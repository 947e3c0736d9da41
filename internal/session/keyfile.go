package session

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// Keyfile sizes for two-factor unlock.
const (
	// MinKeyfileBytes is the smallest keyfile 2fa enable accepts: below it
	// the file adds too little that a guesser would not also try.
	MinKeyfileBytes = 16
	// NewKeyfileBytes is the size of a generated keyfile.
	NewKeyfileBytes = 32
)

// NeedsKeyfile reports whether every key slot of the vault at path needs a
// keyfile (two-factor unlock is on). It reads only the plaintext header.
func NeedsKeyfile(path string) (bool, error) {
	h, err := vaultfmt.ReadHeader(path)
	if err != nil {
		return false, err
	}
	for _, s := range h.Slots {
		if s.Kind != vaultfmt.SlotPassphraseKeyfile {
			return false, nil
		}
	}
	return len(h.Slots) > 0, nil
}

// KeyfileFor reads the keyfile to unlock the vault at vaultPath with: the
// explicit path if given, else the location remembered in the vault's
// config (keyfile_path). Nil means neither is set. A vault with two-factor
// unlock and no keyfile at hand is an error that says where it was
// expected, so no one waits through a passphrase prompt for nothing.
func KeyfileFor(vaultPath, explicit string) ([]byte, error) {
	path, remembered := explicit, false
	if path == "" {
		if cfg, err := vault.LoadConfig(vaultPath); err == nil && cfg.KeyfilePath != "" {
			path, remembered = cfg.KeyfilePath, true
		}
	}
	if path == "" {
		if need, err := NeedsKeyfile(vaultPath); err == nil && need {
			return nil, fmt.Errorf("%w: this vault has two-factor unlock: pass --keyfile PATH (the location is remembered after that)", vaultfmt.ErrKeyfileRequired)
		}
		return nil, nil
	}
	data, err := os.ReadFile(path)
	switch {
	case err != nil && remembered:
		return nil, fmt.Errorf("%w: two-factor unlock needs the keyfile remembered at %s, which cannot be read (%v): attach the media that holds it, or pass --keyfile PATH", vaultfmt.ErrKeyfileRequired, path, err)
	case err != nil:
		return nil, fmt.Errorf("read keyfile: %w", err)
	case len(data) == 0:
		return nil, fmt.Errorf("keyfile %s is empty", path)
	}
	return data, nil
}

// RememberKeyfile records the keyfile's absolute location in the vault's
// config ("" forgets it).
func RememberKeyfile(vaultPath, keyfilePath string) error {
	if keyfilePath != "" {
		abs, err := filepath.Abs(keyfilePath)
		if err != nil {
			return fmt.Errorf("session: %w", err)
		}
		keyfilePath = abs
	}
	cfg, err := vault.LoadConfig(vaultPath)
	if err != nil {
		return err
	}
	if cfg.KeyfilePath == keyfilePath {
		return nil
	}
	cfg.KeyfilePath = keyfilePath
	return cfg.Save(vaultPath)
}

// LoadOrCreateKeyfile returns the contents of the keyfile at path, making
// one of NewKeyfileBytes random bytes (mode 0600, synced to disk before
// anything depends on it) when there is none. created says which.
func LoadOrCreateKeyfile(path string) (data []byte, created bool, err error) {
	data, err = os.ReadFile(path)
	if err == nil {
		if len(data) < MinKeyfileBytes {
			return nil, false, fmt.Errorf("keyfile %s is %d bytes: at least %d are needed (use random bytes, or name a new file and one is generated)", path, len(data), MinKeyfileBytes)
		}
		return data, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("read keyfile: %w", err)
	}
	data = make([]byte, NewKeyfileBytes)
	if _, err := rand.Read(data); err != nil {
		return nil, false, fmt.Errorf("generate keyfile: %w", err)
	}
	if err := writeDurable(path, data); err != nil {
		return nil, false, fmt.Errorf("generate keyfile: %w", err)
	}
	return data, true, nil
}

// writeDurable creates path (refusing to overwrite), writes data, and syncs
// the file and its directory: a keyfile lost in a crash after the key slots
// were rewritten would lock the owner out for good.
func writeDurable(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// DefaultKeyfilePath is where `2fa enable` generates a keyfile when told
// no place: outside the vault's directory, in the user's configuration
// directory, named by the vault id, so a copy of the vault's directory
// does not carry both factors.
func DefaultKeyfilePath(vaultPath string) (string, error) {
	h, err := vaultfmt.ReadHeader(vaultPath)
	if err != nil {
		return "", err
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("session: no configuration directory for the keyfile (%v): pass --keyfile PATH", err)
	}
	return filepath.Join(dir, "compartment", "keyfiles", fmt.Sprintf("%x.keyfile", h.VaultID[:])), nil
}

// InVaultDir reports whether path lies in the directory that holds the
// vault (or below it): a copy of that directory would carry the keyfile
// with the vault.
func InVaultDir(vaultPath, path string) bool {
	dir, err1 := filepath.Abs(filepath.Dir(vaultPath))
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(d, filepath.Base(p))
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
