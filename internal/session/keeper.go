package session

// This file is the contract the MCP server codes against. The bodies are a
// minimal stand-in (COMPARTMENT_PASSPHRASE only) until boot-bound sessions
// land (issue 8).

import (
	"fmt"
	"os"
	"sync"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// OpenFunc opens the vault at the keeper's path with a credential.
type OpenFunc func(u vaultfmt.Unlock) (*vault.Vault, error)

// Keeper holds a vault open for a long-running process while the vault is
// unlocked, and drops it the moment it is locked (here or elsewhere).
type Keeper struct {
	mu   sync.Mutex
	path string
	open OpenFunc
	v    *vault.Vault
}

// NewKeeper returns a keeper for the vault at path. It does not open it.
func NewKeeper(path string, open OpenFunc) *Keeper {
	return &Keeper{path: path, open: open}
}

// Vault returns the open vault, opening it with the session credential if
// one exists, or vault.ErrLocked (with what to do) when the vault is
// locked. Every call counts as use for auto-lock.
func (k *Keeper) Vault() (*vault.Vault, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v != nil {
		return k.v, nil
	}
	pass := os.Getenv("COMPARTMENT_PASSPHRASE")
	if pass == "" {
		return nil, vault.ErrLocked
	}
	v, err := k.open(vaultfmt.Unlock{Passphrase: []byte(pass)})
	if err != nil {
		return nil, err
	}
	k.v = v
	return v, nil
}

// Locked reports whether the vault is locked for this process.
func (k *Keeper) Locked() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.v == nil && os.Getenv("COMPARTMENT_PASSPHRASE") == ""
}

// Unlock opens the vault with a passphrase (memory_unlock) and creates the
// session credential so other processes can use it too.
func (k *Keeper) Unlock(passphrase, keyfile []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, err := k.open(vaultfmt.Unlock{Passphrase: passphrase, Keyfile: keyfile})
	if err != nil {
		return err
	}
	if k.v != nil {
		k.v.Close()
	}
	k.v = v
	return nil
}

// Lock flushes and compacts the vault, drops the key here, deletes the
// session credential and tells every other process to drop theirs. The key
// is dropped even when the flush fails; the flush error is returned.
func (k *Keeper) Lock() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v == nil {
		return nil
	}
	err := k.v.Flush()
	k.v.Close()
	k.v = nil
	if err != nil {
		return fmt.Errorf("lock: %w (the key was dropped anyway)", err)
	}
	return nil
}

// Close drops the vault without locking it for others.
func (k *Keeper) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.v == nil {
		return nil
	}
	err := k.v.Close()
	k.v = nil
	return err
}
