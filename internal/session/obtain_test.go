package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestObtainOrder: the keychain comes first, then the session credential,
// then the environment; the prompt only where offered and nothing else
// answered.
func TestObtainOrder(t *testing.T) {
	hooks(t)
	fakeKeychain(t)
	path, master := newVault(t, t.TempDir())
	prompted := 0
	prompt := func() ([]byte, error) { prompted++; return []byte("correct horse"), nil }

	if _, err := Obtain(path, Request{}); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("nothing offered: %v, want ErrLocked", err)
	}
	key, err := Obtain(path, Request{Prompt: prompt})
	if err != nil || key.Source != SourcePrompt || prompted != 1 {
		t.Fatalf("prompt: %v %v (asked %d times)", key.Source, err, prompted)
	}
	t.Setenv(EnvPassphrase, "correct horse")
	if key, err = Obtain(path, Request{Prompt: prompt}); err != nil || key.Source != SourceEnvironment || string(key.Unlock.Passphrase) != "correct horse" || prompted != 1 {
		t.Fatalf("environment: %v %v (asked %d times)", key.Source, err, prompted)
	}
	s, err := For(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	if key, err = Obtain(path, Request{}); err != nil || key.Source != SourceSession || !bytes.Equal(key.Unlock.MasterKey, master) {
		t.Fatalf("session: %v %v", key.Source, err)
	}
	if err := KeychainUnlock(path, vaultfmt.Unlock{Passphrase: []byte("correct horse")}); err != nil {
		t.Fatal(err)
	}
	if key, err = Obtain(path, Request{}); err != nil || key.Source != SourceKeychain || !bytes.Equal(key.Unlock.MasterKey, master) {
		t.Fatalf("keychain: %v %v", key.Source, err)
	}
}

// TestLockShutsTheEnvironment: after LockVault no Obtain reads
// COMPARTMENT_PASSPHRASE (a prompt still works: a person is typing); an
// explicit unlock opens it again. unlock itself refuses the environment
// while it is shut, rekey and 2fa do not.
func TestLockShutsTheEnvironment(t *testing.T) {
	hooks(t)
	path, master := newVault(t, t.TempDir())
	t.Setenv(EnvPassphrase, "correct horse")
	if _, err := Obtain(path, Request{}); err != nil {
		t.Fatal(err)
	}
	if err := LockVault(path); err != nil {
		t.Fatal(err)
	}
	_, err := Obtain(path, Request{})
	if !errors.Is(err, ErrLockedOut) || !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("after lock: %v, want ErrLockedOut", err)
	}
	key, err := Obtain(path, Request{Prompt: func() ([]byte, error) { return []byte("typed"), nil }})
	if err != nil || key.Source != SourcePrompt {
		t.Fatalf("a prompt after lock: %v %v", key.Source, err)
	}
	if _, err := Passphrase(path, Request{}, true); !errors.Is(err, ErrLockedOut) {
		t.Fatalf("unlock from the environment after lock: %v, want ErrLockedOut", err)
	}
	if p, err := Passphrase(path, Request{}, false); err != nil || string(p) != "correct horse" {
		t.Fatalf("rekey's passphrase after lock: %q %v", p, err)
	}
	// PassphraseSource follows the same rule: after the lock an unlock
	// does not read the environment, a rekey does, and stdin comes first.
	for _, c := range []struct {
		r         Request
		unlocking bool
		want      Source
	}{
		{Request{}, true, SourcePrompt},
		{Request{}, false, SourceEnvironment},
		{Request{Stdin: strings.NewReader("typed\n")}, false, SourcePrompt},
	} {
		if got := PassphraseSource(path, c.r, c.unlocking); got != c.want {
			t.Errorf("PassphraseSource(stdin %v, unlocking %v) after lock = %s, want %s", c.r.Stdin != nil, c.unlocking, got, c.want)
		}
	}
	s, _ := For(path)
	if err := s.Create(master, false); err != nil { // an explicit unlock
		t.Fatal(err)
	}
	os.Remove(s.CredentialPath()) // leave only the environment
	if key, err := Obtain(path, Request{}); err != nil || key.Source != SourceEnvironment {
		t.Fatalf("after an explicit unlock: %v %v", key.Source, err)
	}
}

// TestKeeperPanicLockWithEnvironment is the audit's reproduction in
// process: a keeper opened by COMPARTMENT_PASSPHRASE locks, and neither it
// nor a new keeper (another server) re-opens from the environment; after
// an explicit unlock both work again.
func TestKeeperPanicLockWithEnvironment(t *testing.T) {
	hooks(t)
	path, open := keeperVault(t)
	t.Setenv(EnvPassphrase, keeperPass)
	a := NewKeeper(path, open)
	defer a.Close()
	v, err := a.Vault()
	if err != nil {
		t.Fatal(err)
	}
	if err := store(v, "Stored while the environment opened the vault"); err != nil {
		t.Fatal(err)
	}
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Vault(); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("the next call after the panic lock: %v, want ErrLocked", err)
	}
	if !a.Locked() {
		t.Fatal("Locked() is false after the panic lock")
	}
	b := NewKeeper(path, open)
	defer b.Close()
	if _, err := b.Vault(); !errors.Is(err, vault.ErrLocked) || !b.Locked() {
		t.Fatalf("another server after the lock: %v, want ErrLocked", err)
	}
	if err := b.Unlock([]byte(keeperPass), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Vault(); err != nil {
		t.Fatalf("after an explicit unlock: %v", err)
	}
}

// TestKeeperAutoLockWithEnvironment: an auto-lock is a lock too.
func TestKeeperAutoLockWithEnvironment(t *testing.T) {
	hooks(t)
	t.Setenv(EnvAutoLockSeconds, "0.3")
	path, open := keeperVault(t)
	t.Setenv(EnvPassphrase, keeperPass)
	k := NewKeeper(path, open)
	defer k.Close()
	if _, err := k.Vault(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for k.held() {
		if time.Now().After(deadline) {
			t.Fatal("the idle keeper still holds the key 10 s after a 0.3 s timeout")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := k.Vault(); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("after auto-lock: %v, want ErrLocked", err)
	}
}

// TestKeeperLockWithoutSessionDir: where no session directory can be made
// (here: one refused because it is a symlink), the keeper that locked still
// refuses the environment until it is unlocked.
func TestKeeperLockWithoutSessionDir(t *testing.T) {
	hooks(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "sessions")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvSessionDir, link)
	path, open := keeperVault(t)
	if _, err := For(path); err == nil {
		t.Fatal("a symlinked session directory was accepted")
	}
	t.Setenv(EnvPassphrase, keeperPass)
	k := NewKeeper(path, open)
	defer k.Close()
	if _, err := k.Vault(); err != nil {
		t.Fatal(err)
	}
	k.Lock()
	if _, err := k.Vault(); !errors.Is(err, vault.ErrLocked) || !k.Locked() {
		t.Fatalf("after its own lock: %v, want ErrLocked", err)
	}
}

// TestKeeperKeychain: a server sees an `unlock --keychain`, and its panic
// lock deletes the keychain item.
func TestKeeperKeychain(t *testing.T) {
	hooks(t)
	fakeKeychain(t)
	path, open := keeperVault(t)
	k := NewKeeper(path, open)
	defer k.Close()
	if !k.Locked() {
		t.Fatal("unlocked before any unlock")
	}
	if err := KeychainUnlock(path, vaultfmt.Unlock{Passphrase: []byte(keeperPass)}); err != nil {
		t.Fatal(err)
	}
	if k.Locked() {
		t.Fatal("the keeper does not see the keychain unlock")
	}
	if _, err := k.Vault(); err != nil {
		t.Fatalf("open from the keychain: %v", err)
	}
	if err := k.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, err := KeychainMasterKey(path); !errors.Is(err, ErrNoSession) {
		t.Fatalf("the keychain item survived memory_lock: %v", err)
	}
	if _, err := k.Vault(); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("after lock: %v", err)
	}
}
