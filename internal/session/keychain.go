package session

// The macOS keychain opt-in (`compartment unlock --keychain`): the vault's
// master key kept as a generic password in the user's login keychain, so
// the vault stays unlocked across reboots until `compartment lock`. It is
// weaker than a session on purpose and only on request: the key then lives
// on disk, protected by the keychain (itself locked by the login password),
// instead of under a secret that a reboot destroys.
//
// The item: service "compartment", account "v-<h>" (<h> as for a session
// credential: the first 16 bytes of SHA-256 of the canonical vault path, in
// hex), password "<vault id hex>:<master key hex>". The vault id binds the
// item to the vault it was made for: an item whose id does not match the
// vault's header is deleted, never used. The secret goes to security(1) on
// its standard input (its -i mode), never on a command line other users
// can read.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// EnvKeychainTool (test hook) names a program that stands in for macOS's
// /usr/bin/security and turns the keychain on on any system.
const EnvKeychainTool = "COMPARTMENT_KEYCHAIN_TOOL"

const keychainService = "compartment"

// ErrNoKeychain means this system has no keychain compartment can use.
var ErrNoKeychain = errors.New("session: --keychain is a macOS feature (the login keychain); on Linux `compartment unlock` lasts until reboot, elsewhere set COMPARTMENT_PASSPHRASE")

// keychainTool is the security(1) program, or "" where there is none.
func keychainTool() string {
	if t := os.Getenv(EnvKeychainTool); t != "" {
		return t
	}
	if runtime.GOOS == "darwin" {
		return "/usr/bin/security"
	}
	return ""
}

// KeychainAvailable reports whether `unlock --keychain` can work here.
func KeychainAvailable() error {
	if keychainTool() == "" {
		return ErrNoKeychain
	}
	return nil
}

// keychainAccount names the vault's item.
func keychainAccount(vaultPath string) (string, error) {
	abs, err := filepath.Abs(vaultPath)
	if err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	sum := sha256.Sum256([]byte(canon))
	return "v-" + hex.EncodeToString(sum[:16]), nil
}

// KeychainUnlock opens the vault with u and keeps its master key in the
// keychain.
func KeychainUnlock(vaultPath string, u vaultfmt.Unlock) error {
	tool := keychainTool()
	if tool == "" {
		return ErrNoKeychain
	}
	account, err := keychainAccount(vaultPath)
	if err != nil {
		return err
	}
	f, err := vaultfmt.Open(vaultPath, u, nil)
	if err != nil {
		if errors.Is(err, vaultfmt.ErrWrongPassphrase) {
			time.Sleep(vault.UnlockDelay())
		}
		return fmt.Errorf("unlock %s: %w", vaultPath, err)
	}
	master := f.MasterKey()
	id := f.Header().VaultID
	f.Close()
	defer wipe(master)
	secret := hex.EncodeToString(id[:]) + ":" + hex.EncodeToString(master)
	cmd := exec.Command(tool, "-i")
	cmd.Stdin = strings.NewReader(fmt.Sprintf("add-generic-password -U -s %s -a %s -w %s\n", keychainService, account, secret))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("session: keychain: add the key: %v: %s", err, bytes.TrimSpace(out))
	}
	if s, err := For(vaultPath); err == nil {
		return s.allowEnvironment() // an explicit unlock undoes a lock's marker
	}
	return nil
}

// KeychainMasterKey returns the vault's master key from the keychain, or
// ErrNoSession when there is none (or none for this vault).
func KeychainMasterKey(vaultPath string) ([]byte, error) {
	tool := keychainTool()
	if tool == "" {
		return nil, ErrNoSession
	}
	account, err := keychainAccount(vaultPath)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(tool, "find-generic-password", "-s", keychainService, "-a", account, "-w").Output()
	if err != nil {
		return nil, ErrNoSession
	}
	defer wipe(out)
	idHex, keyHex, ok := strings.Cut(strings.TrimSpace(string(out)), ":")
	id, err1 := hex.DecodeString(idHex)
	master, err2 := hex.DecodeString(keyHex)
	hdr, err := vaultfmt.ReadHeader(vaultPath)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if !ok || err1 != nil || err2 != nil || len(master) != 32 || !bytes.Equal(id, hdr.VaultID[:]) {
		KeychainLock(vaultPath)
		return nil, ErrNoSession
	}
	return master, nil
}

// KeychainLock deletes the vault's item; it reports whether there was one.
func KeychainLock(vaultPath string) (bool, error) {
	tool := keychainTool()
	if tool == "" {
		return false, nil
	}
	account, err := keychainAccount(vaultPath)
	if err != nil {
		return false, err
	}
	err = exec.Command(tool, "delete-generic-password", "-s", keychainService, "-a", account).Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 44: // errSecItemNotFound
		return false, nil
	default:
		return false, fmt.Errorf("session: keychain: delete the key: %w", err)
	}
}
