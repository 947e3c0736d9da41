package session

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// OpenFunc opens the vault at the keeper's path with a credential.
type OpenFunc func(u vaultfmt.Unlock) (*vault.Vault, error)

// EnvPassphrase is the standing credential for scripts and CI.
const EnvPassphrase = "COMPARTMENT_PASSPHRASE"

// Keeper holds a vault open for a long-running process while the vault is
// unlocked, and drops it the moment it is locked, here or elsewhere: before
// every call it checks the lock stamp (and the credential it opened with)
// with a stat or two, and a background check drops the key of an idle
// process when the vault auto-locks or is locked by someone else.
type Keeper struct {
	mu   sync.Mutex
	path string
	open OpenFunc
	sess *Session // nil until the vault exists and the session directory works
	v    *vault.Vault
	hold *Hold
	stop chan struct{} // closed to end the watcher of the current v
}

// NewKeeper returns a keeper for the vault at path. It does not open it.
func NewKeeper(path string, open OpenFunc) *Keeper {
	return &Keeper{path: path, open: open}
}

// Vault returns the open vault, opening it with the session credential
// (or COMPARTMENT_PASSPHRASE) when needed, or an error that wraps
// vault.ErrLocked and says what to do. Every call counts as use for
// auto-lock.
func (k *Keeper) Vault() (*vault.Vault, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v != nil {
		if !k.hold.Current() {
			k.drop() // locked or re-unlocked elsewhere: start again
		} else if k.sess != nil && k.sess.Use() {
			k.lockLocked()
			return nil, errAutoLocked
		} else {
			return k.v, nil
		}
	}
	return k.openLocked()
}

// errAutoLocked is what a call finds after the idle timeout.
var errAutoLocked = fmt.Errorf("%w (it auto-locked after being idle; auto_lock_minutes sets how long)", vault.ErrLocked)

// openLocked opens the vault with the session credential, else the
// passphrase in the environment. The caller holds k.mu.
func (k *Keeper) openLocked() (*vault.Vault, error) {
	s := k.session()
	locked := vault.ErrLocked
	if s != nil {
		key, hold, err := s.MasterKey()
		switch {
		case err == nil:
			v, err := k.open(vaultfmt.Unlock{MasterKey: key})
			wipe(key)
			if err != nil {
				return nil, err
			}
			k.adopt(v, hold)
			return v, nil
		case errors.Is(err, ErrAutoLocked):
			locked = errAutoLocked
		case !errors.Is(err, ErrNoSession):
			locked = fmt.Errorf("%w (%v)", vault.ErrLocked, err)
		}
	}
	pass := os.Getenv(EnvPassphrase)
	if pass == "" {
		return nil, locked
	}
	keyfile, err := KeyfileFor(k.path, "")
	if err != nil {
		return nil, err
	}
	var hold *Hold
	if s != nil {
		hold = s.Hold()
	}
	v, err := k.open(vaultfmt.Unlock{Passphrase: []byte(pass), Keyfile: keyfile})
	if err != nil {
		return nil, err
	}
	if s != nil {
		s.Touch()
	}
	k.adopt(v, hold)
	return v, nil
}

// session returns the vault's session, resolving it on first success (the
// vault may not exist yet when the keeper is made).
func (k *Keeper) session() *Session {
	if k.sess == nil {
		if s, err := For(k.path); err == nil {
			k.sess = s
		}
	}
	return k.sess
}

// adopt makes v the open vault and starts watching for a lock.
func (k *Keeper) adopt(v *vault.Vault, hold *Hold) {
	k.v, k.hold = v, hold
	k.stop = make(chan struct{})
	go k.watch(k.stop)
}

// drop closes the vault (zeroing its keys) without flushing: whoever
// locked it has compacted already, and every write here was durable.
func (k *Keeper) drop() {
	if k.v == nil {
		return
	}
	k.v.Close()
	k.v, k.hold = nil, nil
	close(k.stop)
	k.stop = nil
}

// watch drops an idle process's key when the vault is locked elsewhere or
// auto-locks, so the key does not sit in RAM until the next call.
func (k *Keeper) watch(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(k.watchInterval()):
		}
		k.mu.Lock()
		if k.stop == stop {
			if !k.hold.Current() {
				k.drop()
			} else if k.sess != nil && k.sess.Expired() {
				k.lockLocked()
			}
		}
		k.mu.Unlock()
	}
}

// watchInterval is how often an idle process looks: every few seconds,
// and often enough to honour a short test timeout.
func (k *Keeper) watchInterval() time.Duration {
	d := 5 * time.Second
	if k.sess != nil {
		if t := k.sess.autoLock(); t > 0 {
			d = min(d, max(t/4, 50*time.Millisecond))
		}
	}
	return d
}

// Locked reports whether a call now would find the vault locked (it opens
// nothing).
func (k *Keeper) Locked() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.session()
	if k.v != nil && k.hold.Current() && (s == nil || !s.Expired()) {
		return false
	}
	if s != nil && s.State().Unlocked {
		return false
	}
	return os.Getenv(EnvPassphrase) == ""
}

// Unlock opens the vault with a passphrase (memory_unlock) and creates the
// session credential so every other process can use it too. A nil keyfile
// means the remembered one, if the vault has two-factor unlock. A wrong
// passphrase costs the fixed delay (in vault.Open).
func (k *Keeper) Unlock(passphrase, keyfile []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if keyfile == nil {
		var err error
		if keyfile, err = KeyfileFor(k.path, ""); err != nil {
			return err
		}
	}
	v, err := k.open(vaultfmt.Unlock{Passphrase: passphrase, Keyfile: keyfile})
	if err != nil {
		return err
	}
	s := k.session()
	if s == nil {
		v.Close()
		_, err := For(k.path)
		return fmt.Errorf("unlock: cannot keep an unlock session: %w", err)
	}
	master := v.File().MasterKey()
	err = s.Create(master, false)
	wipe(master)
	if err != nil {
		v.Close()
		return fmt.Errorf("unlock: %w", err)
	}
	hold := s.Hold()
	if fi, err := os.Stat(s.CredentialPath()); err == nil {
		hold.cred = fi
	}
	k.drop()
	k.adopt(v, hold)
	return nil
}

// Lock flushes and compacts the vault, drops the key here, deletes the
// session credential and tells every other process to drop theirs. The key
// is dropped even when the flush fails; the flush error is returned.
func (k *Keeper) Lock() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.lockLocked(); err != nil {
		return fmt.Errorf("lock: %w (the key was dropped anyway)", err)
	}
	return nil
}

// lockLocked is Lock with k.mu held.
func (k *Keeper) lockLocked() error {
	var err error
	if k.v != nil {
		err = k.v.Flush()
		k.drop()
	}
	if s := k.session(); s != nil {
		if lerr := s.Lock(); err == nil {
			err = lerr
		}
	}
	return err
}

// Close drops the vault without locking it for others.
func (k *Keeper) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v == nil {
		return nil
	}
	err := k.v.Close()
	k.v, k.hold = nil, nil
	close(k.stop)
	k.stop = nil
	return err
}
