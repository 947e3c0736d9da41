package session

// The operations a person runs on the credential (unlock for everyone,
// unlock into the keychain, two-factor on and off), whole, so the CLI only
// parses, calls and prints, and the panel, which drives the CLI, gets the
// same rule.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// Unlocked is what [UnlockEveryone] did.
type Unlocked struct {
	State      State
	Already    bool   // an unlocked session was there, and it was kept
	Credential string // the credential file
	// Unlock is the credential that opened the vault (empty when Already);
	// the caller wipes it when done.
	Unlock vaultfmt.Unlock
	// RememberErr is a failure to remember the keyfile's location: the
	// vault is unlocked all the same.
	RememberErr error
}

// UnlockEveryone unlocks the vault for every process of this user until
// reboot, lock or auto-lock; with once, for the one process that opens it
// next. A session already unlocked for everyone is kept (and its idle
// clock reset): replacing it with a once credential would only lock out
// every process that uses it now. The passphrase comes by [Passphrase]'s
// rule for an unlock; a keyfile named in r is remembered for a vault that
// needs one.
func UnlockEveryone(vaultPath string, r Request, once bool) (Unlocked, error) {
	s, err := For(vaultPath)
	if err != nil {
		return Unlocked{}, err
	}
	if st := s.State(); st.Unlocked && !st.Once {
		s.Touch()
		return Unlocked{State: s.State(), Already: true, Credential: s.CredentialPath()}, nil
	}
	u, err := PassphraseUnlock(vaultPath, r, true)
	if err != nil {
		return Unlocked{}, err
	}
	if err := s.Unlock(u, once); err != nil {
		return Unlocked{}, err
	}
	out := Unlocked{State: s.State(), Credential: s.CredentialPath(), Unlock: u}
	if r.Keyfile != "" {
		if need, _ := NeedsKeyfile(vaultPath); need {
			out.RememberErr = RememberKeyfile(vaultPath, r.Keyfile)
		}
	}
	return out, nil
}

// UnlockIntoKeychain is `unlock --keychain` (macOS): the master key goes
// into the login keychain, where it stays, reboots included, until a lock.
// It returns the credential that opened the vault.
func UnlockIntoKeychain(vaultPath string, r Request) (vaultfmt.Unlock, error) {
	if err := KeychainAvailable(); err != nil {
		return vaultfmt.Unlock{}, err
	}
	u, err := PassphraseUnlock(vaultPath, r, true)
	if err != nil {
		return vaultfmt.Unlock{}, err
	}
	return u, KeychainUnlock(vaultPath, u)
}

// TwoFactor is the state of two-factor unlock (passphrase and keyfile).
type TwoFactor struct {
	Enabled bool
	Keyfile string // where the keyfile is expected ("" = not remembered)
	Present bool   // the keyfile is there to read
	// Generated says that enabling made a new keyfile, Default that it is
	// at [DefaultKeyfilePath] (outside the vault's directory).
	Generated, Default bool
	// RememberErr is a failure to remember (or forget) the keyfile's
	// location after the key slots changed.
	RememberErr error
}

// TwoFactorState reads whether the vault needs a keyfile and where it is
// expected; no credential is needed.
func TwoFactorState(vaultPath string) (TwoFactor, error) {
	need, err := NeedsKeyfile(vaultPath)
	if err != nil {
		return TwoFactor{}, err
	}
	t := TwoFactor{Enabled: need}
	if cfg, err := vault.LoadConfig(vaultPath); err == nil && cfg.KeyfilePath != "" {
		t.Keyfile = cfg.KeyfilePath
		_, serr := os.Stat(t.Keyfile)
		t.Present = serr == nil
	}
	return t, nil
}

// EnableTwoFactor makes the vault need a keyfile as well as the
// passphrase, both fed into Argon2id: the keyfile at r.Keyfile (made there
// when missing), else a new one at [DefaultKeyfilePath]. open opens the
// vault with the passphrase (proved by [Passphrase]); a keyfile made for a
// change that failed is removed again.
func EnableTwoFactor(vaultPath string, r Request, open OpenFunc) (TwoFactor, error) {
	if need, err := NeedsKeyfile(vaultPath); err != nil {
		return TwoFactor{}, err
	} else if need {
		return TwoFactor{}, errors.New("two-factor unlock is already on; to change the keyfile, run `2fa disable` then `2fa enable`")
	}
	t := TwoFactor{Enabled: true, Keyfile: r.Keyfile, Default: r.Keyfile == ""}
	if t.Default {
		var err error
		if t.Keyfile, err = DefaultKeyfilePath(vaultPath); err != nil {
			return TwoFactor{}, err
		}
		if err := os.MkdirAll(filepath.Dir(t.Keyfile), 0o700); err != nil {
			return TwoFactor{}, fmt.Errorf("2fa enable: %w", err)
		}
	}
	pass, err := Passphrase(vaultPath, r, false)
	if err != nil {
		return TwoFactor{}, err
	}
	v, err := open(vaultfmt.Unlock{Passphrase: pass})
	if err != nil {
		return TwoFactor{}, err
	}
	defer v.Close()
	keyfile, created, err := LoadOrCreateKeyfile(t.Keyfile)
	if err != nil {
		return TwoFactor{}, err
	}
	if err := v.EnableKeyfile(pass, keyfile); err != nil {
		if created {
			os.Remove(t.Keyfile)
		}
		return TwoFactor{}, err
	}
	t.Generated, t.Present = created, true
	t.RememberErr = RememberKeyfile(vaultPath, t.Keyfile)
	return t, nil
}

// DisableTwoFactor goes back to the passphrase alone. The keyfile is not
// deleted; its remembered location is forgotten.
func DisableTwoFactor(vaultPath string, r Request, open OpenFunc) (TwoFactor, error) {
	if need, err := NeedsKeyfile(vaultPath); err != nil {
		return TwoFactor{}, err
	} else if !need {
		return TwoFactor{}, errors.New("two-factor unlock is already off")
	}
	u, err := PassphraseUnlock(vaultPath, r, false)
	if err != nil {
		return TwoFactor{}, err
	}
	v, err := open(u)
	if err != nil {
		return TwoFactor{}, err
	}
	defer v.Close()
	if err := v.DisableKeyfile(u.Passphrase); err != nil {
		return TwoFactor{}, err
	}
	return TwoFactor{RememberErr: RememberKeyfile(vaultPath, "")}, nil
}

// LockEveryone is a lock by a person: flush (compaction, signing) runs
// first with a key at hand, and then every process's key is dropped
// ([LockVault]). A lock never asks for a passphrase to flush; only when
// needKey (a signature cannot be made without the key) does it obtain one
// by r, prompt included. The vault is locked whatever flush returns; its
// failure is reported after. flushed says whether flush ran.
func LockEveryone(vaultPath string, r Request, needKey bool, flush func(vaultfmt.Unlock) error) (flushed bool, err error) {
	quiet := r
	quiet.Prompt = nil
	key, err := Obtain(vaultPath, quiet)
	if err != nil && needKey {
		if key, err = Obtain(vaultPath, r); err != nil {
			return false, err
		}
	}
	var flushErr error
	if flushed = err == nil; flushed {
		flushErr = flush(key.Unlock)
	}
	if err := LockVault(vaultPath); err != nil {
		return flushed, fmt.Errorf("lock: %w", err)
	}
	if flushErr != nil {
		return flushed, fmt.Errorf("locked (every key dropped), but the flush failed: %w", flushErr)
	}
	return flushed, nil
}

// UnlockCreated opens an unlock session for everyone with the credential
// a new vault was just created with, so the next command (and every agent)
// can use it at once: what init does last. Unlike [UnlockEveryone] it
// reads no passphrase and replaces whatever session was there.
func UnlockCreated(vaultPath string, u vaultfmt.Unlock) error {
	s, err := For(vaultPath)
	if err != nil {
		return err
	}
	return s.Unlock(u, false)
}
