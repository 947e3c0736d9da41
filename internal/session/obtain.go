package session

// The one rule for where a process gets the vault's key and how it gives it
// up. The CLI, the MCP server (through [Keeper]), the dashboard and the
// panel (which drives the CLI) all come through here, so they cannot
// disagree about it.
//
// Obtaining, first source that answers wins:
//  1. the macOS keychain item (`unlock --keychain`);
//  2. the per-boot unlock credential (`compartment unlock`, memory_unlock);
//  3. COMPARTMENT_PASSPHRASE, unless the vault was locked (lock,
//     memory_lock, auto-lock) since the last explicit unlock on this boot;
//  4. a prompt on the terminal, only where the caller offers one (the CLI).
//
// Dropping ([LockVault]): the credential goes, the lock stamp moves (every
// process drops its key before its next call), the environment marker is
// written (nobody reads COMPARTMENT_PASSPHRASE again), and the keychain
// item is deleted. An explicit unlock ([Session.Create], [KeychainUnlock])
// removes the marker.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// Source says where a key came from.
type Source string

// The sources, in the order they are tried.
const (
	SourceKeychain    Source = "keychain"
	SourceSession     Source = "session"
	SourceEnvironment Source = "environment"
	SourcePrompt      Source = "prompt"
)

// Request is what a caller brings to [Obtain].
type Request struct {
	// Keyfile is the keyfile named on the command line ("" = the one the
	// vault remembers, if it has two-factor unlock).
	Keyfile string
	// Prompt asks a person for the passphrase; nil means never ask.
	Prompt func() ([]byte, error)
	// NoEnvironment refuses COMPARTMENT_PASSPHRASE whatever the marker
	// says (a process that locked the vault itself, with no session
	// directory to write the marker in).
	NoEnvironment bool
	// Stdin, when set, is where [Passphrase] reads the passphrase (its
	// first line) before any other source: a person piped it there
	// (--passphrase-stdin). [Obtain] does not read it.
	Stdin io.Reader
}

// Key is an obtained credential.
type Key struct {
	Unlock vaultfmt.Unlock
	Source Source
	// Hold tells later whether the vault was locked since; nil when this
	// machine has no session directory (nothing to watch).
	Hold *Hold
}

// ErrLockedOut is the locked error after an explicit lock: the environment
// passphrase is not used again until an explicit unlock.
var ErrLockedOut = fmt.Errorf("%w (it was locked by `compartment lock`, memory_lock or auto-lock; COMPARTMENT_PASSPHRASE is not used again until an explicit unlock)", vault.ErrLocked)

// errNothingOffered is the locked error when no source answered.
var errNothingOffered = fmt.Errorf("%w (or set COMPARTMENT_PASSPHRASE for scripts)", vault.ErrLocked)

// Obtain finds the key of the vault at vaultPath by the rule above. With
// no source it returns an error wrapping vault.ErrLocked that says what to
// do. The caller wipes Key.Unlock's secrets when done.
func Obtain(vaultPath string, r Request) (Key, error) {
	// No session directory (none on this system, or one refused as
	// unsafe) means no credential, stamp or marker to read: the
	// keychain, the environment and the prompt remain.
	s, _ := For(vaultPath)
	var hold *Hold
	if s != nil {
		hold = s.Hold()
	}
	if key, err := KeychainMasterKey(vaultPath); err == nil {
		return Key{Unlock: vaultfmt.Unlock{MasterKey: key}, Source: SourceKeychain, Hold: hold}, nil
	}
	locked := errNothingOffered
	if s != nil {
		key, h, err := s.MasterKey()
		switch {
		case err == nil:
			return Key{Unlock: vaultfmt.Unlock{MasterKey: key}, Source: SourceSession, Hold: h}, nil
		case errors.Is(err, ErrAutoLocked):
			locked = errAutoLockedOut
		case !errors.Is(err, ErrNoSession):
			locked = fmt.Errorf("%w (%v)", vault.ErrLocked, err)
		}
	}
	if EnvironmentAllowed(s) && !r.NoEnvironment {
		if pass := os.Getenv(EnvPassphrase); pass != "" {
			keyfile, err := KeyfileFor(vaultPath, r.Keyfile)
			if err != nil {
				return Key{}, err
			}
			return Key{Unlock: vaultfmt.Unlock{Passphrase: []byte(pass), Keyfile: keyfile}, Source: SourceEnvironment, Hold: hold}, nil
		}
	} else if locked == errNothingOffered {
		locked = ErrLockedOut
	}
	if r.Prompt == nil {
		return Key{}, locked
	}
	keyfile, err := KeyfileFor(vaultPath, r.Keyfile)
	if err != nil {
		return Key{}, err
	}
	pass, err := r.Prompt()
	if err != nil {
		if errors.Is(err, vault.ErrLocked) {
			return Key{}, locked // no terminal: say why it is locked
		}
		return Key{}, err
	}
	return Key{Unlock: vaultfmt.Unlock{Passphrase: pass, Keyfile: keyfile}, Source: SourcePrompt, Hold: hold}, nil
}

// errAutoLockedOut is what a process finds after the idle timeout.
var errAutoLockedOut = fmt.Errorf("%w (it auto-locked after being idle; auto_lock_minutes sets how long)", vault.ErrLocked)

// PassphraseSource says where [Passphrase], asked the same, takes the
// passphrase from: [SourceEnvironment] when it reads COMPARTMENT_PASSPHRASE,
// else [SourcePrompt] (stdin or the terminal). What a command says about
// a wrong passphrase depends on it: one in the environment is corrected
// there, not typed again.
func PassphraseSource(vaultPath string, r Request, unlocking bool) Source {
	if r.Stdin == nil && os.Getenv(EnvPassphrase) != "" && environmentAllowedFor(vaultPath, unlocking) {
		return SourceEnvironment
	}
	return SourcePrompt
}

// environmentAllowedFor is [EnvironmentAllowed] for [Passphrase]: only an
// unlock honours a lock's marker.
func environmentAllowedFor(vaultPath string, unlocking bool) bool {
	if !unlocking {
		return true
	}
	s, _ := For(vaultPath)
	return EnvironmentAllowed(s)
}

// EnvironmentAllowed reports whether COMPARTMENT_PASSPHRASE may be read for
// the vault of s now: not after a lock until an explicit unlock. A nil s
// (no session directory on this machine) has no marker to honour.
func EnvironmentAllowed(s *Session) bool {
	if s == nil {
		return true
	}
	_, err := os.Stat(s.markerPath())
	return errors.Is(err, fs.ErrNotExist)
}

// LockVault drops the key of the vault at vaultPath for every process: the
// session is locked (credential deleted, lock stamp moved, environment
// marker written) and the keychain item deleted. A machine with no session
// directory has no session to lock; that is not an error.
func LockVault(vaultPath string) error {
	s, err := For(vaultPath)
	switch {
	case err == nil:
		err = s.Lock()
	case errors.Is(err, ErrNoRAMDir):
		err = nil
	}
	if _, kerr := KeychainLock(vaultPath); err == nil {
		err = kerr
	}
	return err
}

// markerPath is the environment marker: present after a lock, removed by
// an explicit unlock (FORMAT.md 7.4).
func (s *Session) markerPath() string { return filepath.Join(s.dir, s.stem+".noenv") }

// allowEnvironment removes the marker (an explicit unlock).
func (s *Session) allowEnvironment() error {
	if err := os.Remove(s.markerPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session: clear the lock marker: %w", err)
	}
	return nil
}

// Passphrase gets the passphrase itself for a command that must prove it
// (unlock, rekey, 2fa enable|disable): r.Stdin when set, else
// COMPARTMENT_PASSPHRASE, else r.Prompt. For an unlock (unlocking) the environment is refused after a
// lock, as everywhere else: the passphrase a lock shut out must not undo
// the lock, so a person types it (or pipes it to --passphrase-stdin).
// rekey and 2fa still read it: they change key slots and open nothing for
// anyone else.
func Passphrase(vaultPath string, r Request, unlocking bool) ([]byte, error) {
	if r.Stdin != nil {
		return ReadPassphraseLine(r.Stdin)
	}
	allowed := environmentAllowedFor(vaultPath, unlocking)
	if env := os.Getenv(EnvPassphrase); env != "" && allowed {
		return []byte(env), nil
	}
	if r.Prompt == nil {
		if !allowed {
			return nil, ErrLockedOut
		}
		return nil, errNothingOffered
	}
	pass, err := r.Prompt()
	if errors.Is(err, vault.ErrLocked) && !allowed {
		return nil, fmt.Errorf("%w; pipe the passphrase to --passphrase-stdin or run it on a terminal", ErrLockedOut)
	}
	return pass, err
}
