package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnlockKeychain runs the macOS keychain opt-in end to end against a
// stand-in for security(1) (internal/session/testdata/fake-security): after
// `unlock --keychain` a command without the passphrase opens the vault,
// after `lock` it no longer does. Without the stand-in, off macOS, the flag
// is refused with the alternatives named.
func TestUnlockKeychain(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	tool, _ := filepath.Abs(filepath.Join("..", "..", "internal", "session", "testdata", "fake-security"))
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COMPARTMENT_VAULT=" + filepath.Join(dir, "memory.vault"),
		"COMPARTMENT_SESSION_DIR=" + filepath.Join(dir, "sessions"), "COMPARTMENT_BOOT_SECRET_DIR=" + filepath.Join(dir, "boot"),
		"COMPARTMENT_EMBED_DAEMON=0"}
	withKeychain := append(append([]string(nil), base...), "COMPARTMENT_KEYCHAIN_TOOL="+tool, "FAKE_KEYCHAIN="+filepath.Join(dir, "keychain"))
	run := func(env []string, pass string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if pass != "" {
			cmd.Env = append(append([]string(nil), env...), "COMPARTMENT_PASSPHRASE="+pass)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const pass = "keychain test passphrase"
	if out, err := run(base, pass, "init", "--no-app"); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if out, err := run(base, pass, "unlock", "--keychain"); err == nil || !strings.Contains(out, "macOS") || !strings.Contains(out, "COMPARTMENT_PASSPHRASE") {
		t.Fatalf("--keychain off macOS: want a refusal naming the alternatives, got %v\n%s", err, out)
	}
	if out, err := run(withKeychain, pass, "unlock", "--keychain"); err != nil {
		t.Fatalf("unlock --keychain: %v\n%s", err, out)
	}
	if out, err := run(withKeychain, "", "store", "kept in the keychain unlock", "--source", "test"); err != nil {
		t.Fatalf("store after unlock --keychain, no passphrase: %v\n%s", err, out)
	}
	if out, err := run(withKeychain, "", "lock"); err != nil {
		t.Fatalf("lock: %v\n%s", err, out)
	}
	if out, err := run(withKeychain, "", "store", "after the lock", "--source", "test"); err == nil {
		t.Fatalf("store after lock worked without a passphrase:\n%s", out)
	}
	items, _ := os.ReadDir(filepath.Join(dir, "keychain", "items"))
	if len(items) != 0 {
		t.Fatalf("lock left %d keychain items", len(items))
	}
}
