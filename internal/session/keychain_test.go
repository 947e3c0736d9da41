package session

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// fakeKeychain points the keychain at testdata/fake-security with a store
// in a temporary directory, and returns that directory.
func fakeKeychain(t *testing.T) string {
	t.Helper()
	tool, err := filepath.Abs(filepath.Join("testdata", "fake-security"))
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	t.Setenv(EnvKeychainTool, tool)
	t.Setenv("FAKE_KEYCHAIN", store)
	return store
}

// TestKeychainRoundTrip: unlock --keychain stores the master key, a later
// process gets exactly that key back, lock deletes it, and the key never
// appears on a command line.
func TestKeychainRoundTrip(t *testing.T) {
	store := fakeKeychain(t)
	path, master := newVault(t, t.TempDir())
	if _, err := KeychainMasterKey(path); !errors.Is(err, ErrNoSession) {
		t.Fatalf("before unlock: %v", err)
	}
	if err := KeychainUnlock(path, vaultfmt.Unlock{Passphrase: []byte("wrong horse")}); !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if err := KeychainUnlock(path, vaultfmt.Unlock{Passphrase: []byte("correct horse")}); err != nil {
		t.Fatal(err)
	}
	got, err := KeychainMasterKey(path)
	if err != nil || !bytes.Equal(got, master) {
		t.Fatalf("master key from the keychain: %v", err)
	}
	f, err := vaultfmt.Open(path, vaultfmt.Unlock{MasterKey: got}, nil)
	if err != nil {
		t.Fatalf("the keychain's key does not open the vault: %v", err)
	}
	f.Close()
	argv, _ := os.ReadFile(filepath.Join(store, "argv.log"))
	if strings.Contains(string(argv), hex.EncodeToString(master)) {
		t.Fatalf("the master key was passed on a command line:\n%s", argv)
	}
	if was, err := KeychainLock(path); !was || err != nil {
		t.Fatalf("lock: %v %v", was, err)
	}
	if _, err := KeychainMasterKey(path); !errors.Is(err, ErrNoSession) {
		t.Fatalf("after lock: %v", err)
	}
	if was, err := KeychainLock(path); was || err != nil {
		t.Fatalf("second lock: %v %v", was, err)
	}
}

// TestKeychainRefusesAnotherVault: an item made for one vault is not used
// for another vault put at the same path (the vault id differs); it is
// deleted instead.
func TestKeychainRefusesAnotherVault(t *testing.T) {
	fakeKeychain(t)
	dir := t.TempDir()
	path, _ := newVault(t, dir)
	if err := KeychainUnlock(path, vaultfmt.Unlock{Passphrase: []byte("correct horse")}); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	os.Remove(path + ".lock")
	newVault(t, dir) // a different vault, same path
	if _, err := KeychainMasterKey(path); !errors.Is(err, ErrNoSession) {
		t.Fatalf("another vault at the same path: %v", err)
	}
	if was, _ := KeychainLock(path); was {
		t.Fatal("the mismatched item was left in the keychain")
	}
}

// TestKeychainElsewhere: without macOS (and without the test hook) the
// opt-in is refused with what to use instead.
func TestKeychainElsewhere(t *testing.T) {
	t.Setenv(EnvKeychainTool, "")
	if keychainTool() != "" {
		t.Skip("this is macOS: the keychain exists")
	}
	err := KeychainAvailable()
	if !errors.Is(err, ErrNoKeychain) || !strings.Contains(err.Error(), "COMPARTMENT_PASSPHRASE") {
		t.Fatalf("KeychainAvailable = %v", err)
	}
	if _, err := KeychainMasterKey(filepath.Join(t.TempDir(), "v")); !errors.Is(err, ErrNoSession) {
		t.Fatalf("KeychainMasterKey = %v", err)
	}
}
