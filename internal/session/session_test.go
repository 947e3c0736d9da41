package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// hooks points every directory and the boot id at t's temp dir and returns
// the boot id file.
func hooks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot_id")
	if err := os.WriteFile(boot, []byte("boot-one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvBootIDFile, boot)
	t.Setenv(EnvBootSecretDir, filepath.Join(dir, "boot"))
	t.Setenv(EnvSessionDir, filepath.Join(dir, "sessions"))
	t.Setenv(EnvAutoLockSeconds, "")
	return boot
}

// newVault creates a vault file and returns its path and master key.
func newVault(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	path := filepath.Join(dir, "memory.vault")
	f, err := vaultfmt.Create(path, vaultfmt.CreateOptions{Slot: vaultfmt.SlotSpec{
		Kind: vaultfmt.SlotPassphrase, Passphrase: []byte("correct horse"),
		KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return path, f.MasterKey()
}

func newSession(t *testing.T) (*Session, []byte) {
	t.Helper()
	path, master := newVault(t, t.TempDir())
	s, err := For(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, master
}

func TestSessionRoundTrip(t *testing.T) {
	hooks(t)
	s, master := newSession(t)
	if _, _, err := s.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("before unlock: %v, want ErrNoSession", err)
	}
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	key, hold, err := s.MasterKey()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(key, master) {
		t.Fatal("the session returned another key")
	}
	if !hold.Current() {
		t.Fatal("a fresh hold is not current")
	}
	if _, err := vaultfmt.Open(s.Path(), vaultfmt.Unlock{MasterKey: key}, nil); err != nil {
		t.Fatalf("the session key does not open the vault: %v", err)
	}
	fi, err := os.Stat(s.CredentialPath())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential mode %v, want 0600", fi.Mode().Perm())
	}
	if err := s.Lock(); err != nil {
		t.Fatal(err)
	}
	if hold.Current() {
		t.Fatal("the hold survived a lock")
	}
	if _, _, err := s.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("after lock: %v, want ErrNoSession", err)
	}
	if st := s.State(); st.Unlocked {
		t.Fatal("State says unlocked after lock")
	}
}

// TestHoldSeesNewCredential: a process holding the key from one unlock
// notices when that credential is replaced (lock then unlock elsewhere).
func TestHoldSeesNewCredential(t *testing.T) {
	hooks(t)
	s, master := newSession(t)
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	_, hold, err := s.MasterKey()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(s.CredentialPath())
	if hold.Current() {
		t.Fatal("the hold survived its credential's removal")
	}
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	if hold.Current() {
		t.Fatal("the hold took a new credential for its own")
	}
}

func TestRebootInvalidates(t *testing.T) {
	boot := hooks(t)
	s, master := newSession(t)
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(boot, []byte("boot-two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("after a reboot: %v, want ErrNoSession", err)
	}
	if _, err := os.Stat(s.CredentialPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the dead credential was left behind")
	}
	// Going back to the old boot id does not revive it: the secret is new.
	os.WriteFile(boot, []byte("boot-one\n"), 0o600)
	if _, _, err := s.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("back on the first boot id: %v, want ErrNoSession", err)
	}
}

// TestCopiedCredential: a credential copied to another vault's name opens
// nothing, even when both vaults share a passphrase.
func TestCopiedCredential(t *testing.T) {
	hooks(t)
	a, masterA := newSession(t)
	b, _ := newSession(t)
	if err := a.Create(masterA, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a.CredentialPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.CredentialPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("copied credential: %v, want ErrNoSession", err)
	}
	// The same vault file moved to another path: also refused.
	moved := filepath.Join(t.TempDir(), "moved.vault")
	raw, _ := os.ReadFile(a.Path())
	os.WriteFile(moved, raw, 0o600)
	m, err := For(moved)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(m.CredentialPath(), data, 0o600)
	if _, _, err := m.MasterKey(); !errors.Is(err, ErrNoSession) {
		t.Fatalf("credential for a copied vault: %v, want ErrNoSession", err)
	}
}

// TestOnceClaimedOnce: of many processes racing for a once credential,
// exactly one gets it.
func TestOnceClaimedOnce(t *testing.T) {
	hooks(t)
	s, master := newSession(t)
	if err := s.Create(master, true); err != nil {
		t.Fatal(err)
	}
	if st := s.State(); !st.Unlocked || !st.Once {
		t.Fatalf("state %+v, want unlocked once", st)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other, _ := For(s.Path())
			if _, _, err := other.MasterKey(); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			} else if !errors.Is(err, ErrNoSession) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d processes got the once credential, want 1", won)
	}
	if _, err := os.Stat(s.CredentialPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the once credential is still there")
	}
}

// TestAutoLockExpiry: past the idle timeout the credential is locked
// instead of used, and every hold ends.
func TestAutoLockExpiry(t *testing.T) {
	hooks(t)
	t.Setenv(EnvAutoLockSeconds, "0.2")
	s, master := newSession(t)
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	_, hold, err := s.MasterKey()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if !s.Expired() {
		t.Fatal("not expired after twice the timeout")
	}
	if _, _, err := s.MasterKey(); !errors.Is(err, ErrAutoLocked) {
		t.Fatalf("idle past the timeout: %v, want ErrAutoLocked", err)
	}
	if hold.Current() {
		t.Fatal("a hold survived the auto-lock")
	}
	t.Setenv(EnvAutoLockSeconds, "0")
	if err := s.Create(master, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if s.Expired() {
		t.Fatal("auto_lock 0 expired")
	}
}
