package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

const keeperPass = "correct horse battery"

// keeperVault creates a vault and returns its path and an OpenFunc for it.
func keeperVault(t *testing.T) (string, OpenFunc) {
	t.Helper()
	return keeperVaultB(t, t.TempDir())
}

func keeperVaultB(t testing.TB, dir string) (string, OpenFunc) {
	t.Helper()
	path := filepath.Join(dir, "memory.vault")
	v, err := vault.Create(path, vault.Options{
		Unlock: vaultfmt.Unlock{Passphrase: []byte(keeperPass)},
		KDF:    vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	return path, func(u vaultfmt.Unlock) (*vault.Vault, error) {
		return vault.Open(path, vault.Options{Unlock: u})
	}
}

func store(v *vault.Vault, text string) error {
	_, err := v.Store(vault.StoreRequest{Text: text, Source: "test"})
	return err
}

// TestKeeperLockElsewhere: two keepers (as in two servers) share one
// unlock; a lock through either drops the key in both.
func TestKeeperLockElsewhere(t *testing.T) {
	hooks(t)
	t.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
	path, open := keeperVault(t)
	a, b := NewKeeper(path, open), NewKeeper(path, open)
	defer a.Close()
	defer b.Close()
	if !b.Locked() {
		t.Fatal("b is unlocked before any unlock")
	}
	if err := a.Unlock([]byte("wrong passphrase"), nil); !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if err := a.Unlock([]byte(keeperPass), nil); err != nil {
		t.Fatal(err)
	}
	if b.Locked() {
		t.Fatal("b does not see a's unlock")
	}
	vb, err := b.Vault()
	if err != nil {
		t.Fatal(err)
	}
	if err := store(vb, "Written through the second keeper"); err != nil {
		t.Fatal(err)
	}
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Vault(); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("b after a's lock: %v, want ErrLocked", err)
	}
	if err := store(vb, "Through a handle kept from before the lock"); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("an old handle still writes after lock: %v", err)
	}
	if !a.Locked() || !b.Locked() {
		t.Fatal("Locked() is false after lock")
	}
}

// TestKeeperWatcherDropsIdleKey: an idle keeper drops its key at the
// auto-lock timeout without any call, and the credential goes with it.
func TestKeeperWatcherDropsIdleKey(t *testing.T) {
	hooks(t)
	t.Setenv(EnvAutoLockSeconds, "0.3")
	path, open := keeperVault(t)
	k := NewKeeper(path, open)
	defer k.Close()
	if err := k.Unlock([]byte(keeperPass), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		k.mu.Lock()
		held := k.v != nil
		k.mu.Unlock()
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle keeper still holds the key 10 s after a 0.3 s timeout")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := k.sess.State(); st.Unlocked {
		t.Fatal("the credential survived the auto-lock")
	}
	if _, err := k.Vault(); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("after auto-lock: %v, want ErrLocked", err)
	}
}

// TestKeeperEnvPassphrase: with no session, the keeper opens with
// COMPARTMENT_PASSPHRASE and writes no credential.
func TestKeeperEnvPassphrase(t *testing.T) {
	hooks(t)
	path, open := keeperVault(t)
	t.Setenv(EnvPassphrase, keeperPass)
	k := NewKeeper(path, open)
	defer k.Close()
	v, err := k.Vault()
	if err != nil {
		t.Fatal(err)
	}
	if err := store(v, "Stored by a script"); err != nil {
		t.Fatal(err)
	}
	if k.sess.State().Unlocked {
		t.Fatal("the environment passphrase left a credential")
	}
}

// TestKeeperConcurrent: calls from many goroutines while the vault is
// locked and unlocked underneath them see either a vault or ErrLocked,
// never anything else (run with -race).
func TestKeeperConcurrent(t *testing.T) {
	hooks(t)
	path, open := keeperVault(t)
	k, other := NewKeeper(path, open), NewKeeper(path, open)
	defer k.Close()
	defer other.Close()
	if err := other.Unlock([]byte(keeperPass), nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var stored atomic.Int64
	stop := make(chan struct{})
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v, err := k.Vault()
				if err == nil {
					if err = store(v, fmt.Sprintf("Goroutine %d wrote entry %d", g, i)); err == nil {
						stored.Add(1)
					}
				}
				if err != nil && !errors.Is(err, vault.ErrLocked) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		}()
	}
	for range 3 {
		time.Sleep(100 * time.Millisecond)
		if err := other.Lock(); err != nil {
			t.Error(err)
		}
		time.Sleep(50 * time.Millisecond)
		if err := other.Unlock([]byte(keeperPass), nil); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if stored.Load() == 0 {
		t.Fatal("no store went through between the locks")
	}
}

func writeBootID(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "boot_id")
	if err := os.WriteFile(path, []byte("bench-boot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
