package session

import (
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
	// lockedHere: this keeper locked the vault and has not been unlocked
	// since, so it refuses the environment passphrase even where no
	// session directory can carry the lock to other processes.
	lockedHere bool
}

// NewKeeper returns a keeper for the vault at path. It does not open it.
func NewKeeper(path string, open OpenFunc) *Keeper {
	return &Keeper{path: path, open: open}
}

// Vault returns the open vault, opening it by the one rule of [Obtain]
// (keychain, session credential, then COMPARTMENT_PASSPHRASE unless the
// vault was locked since the last explicit unlock) when needed, or an
// error that wraps vault.ErrLocked and says what to do. Every call counts
// as use for auto-lock.
func (k *Keeper) Vault() (*vault.Vault, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v != nil {
		if !k.hold.Current() {
			k.drop() // locked or re-unlocked elsewhere: start again
		} else if k.sess != nil && k.sess.Use() {
			k.lockLocked()
			return nil, errAutoLockedOut
		} else {
			return k.v, nil
		}
	}
	return k.openLocked()
}

// openLocked opens the vault with the first credential [Obtain] finds.
// The caller holds k.mu.
func (k *Keeper) openLocked() (*vault.Vault, error) {
	key, err := Obtain(k.path, Request{NoEnvironment: k.lockedHere})
	if err != nil {
		return nil, err
	}
	v, err := k.open(key.Unlock)
	wipe(key.Unlock.MasterKey)
	wipe(key.Unlock.Passphrase)
	if err != nil {
		return nil, err
	}
	if key.Source != SourceEnvironment {
		k.lockedHere = false // someone unlocked explicitly
	}
	if s := k.session(); s != nil && key.Source != SourceSession {
		s.Touch() // the credential's pickup touched already
	}
	k.adopt(v, key.Hold)
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
	if KeychainAvailable() == nil {
		if key, err := KeychainMasterKey(k.path); err == nil {
			wipe(key)
			return false
		}
	}
	return k.lockedHere || !EnvironmentAllowed(s) || os.Getenv(EnvPassphrase) == ""
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
	k.lockedHere = false
	return nil
}

// Lock flushes and compacts the vault, drops the key here and locks the
// vault for every process ([LockVault]: the credential and the keychain
// item are deleted, and COMPARTMENT_PASSPHRASE is not read again until an
// explicit unlock). The key is dropped even when the flush fails; the
// flush error is returned.
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
	k.lockedHere = true
	if lerr := LockVault(k.path); err == nil {
		err = lerr
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
