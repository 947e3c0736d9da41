package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTwoFactorDefaultKeyfileOutsideVaultDir: `2fa enable` without
// --keyfile generated the keyfile beside the vault, where a copy of the
// directory carried both factors. It now goes to the user's configuration
// directory, and a keyfile placed in the vault's directory draws a warning.
func TestTwoFactorDefaultKeyfileOutsideVaultDir(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	conf := []string{"XDG_CONFIG_HOME=" + filepath.Join(e.dir, "home", ".config")}
	r := e.run(testPass+"\n", conf, "2fa", "enable", "--passphrase-stdin", "--json")
	if r.code != 0 {
		t.Fatalf("2fa enable: %s", r.stderr)
	}
	var out struct {
		Keyfile   string `json:"keyfile"`
		Generated bool   `json:"generated"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !out.Generated {
		t.Fatalf("2fa enable --json: %s %v", r.stdout, err)
	}
	vaultDir := filepath.Dir(e.vault)
	if strings.HasPrefix(out.Keyfile, vaultDir+string(filepath.Separator)) {
		t.Fatalf("the generated keyfile %s is in the vault's directory %s", out.Keyfile, vaultDir)
	}
	if fi, err := os.Stat(out.Keyfile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keyfile %s: %v %v", out.Keyfile, fi, err)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Fatalf("a warning for a keyfile outside the vault's directory: %s", r.stderr)
	}
	// The remembered location unlocks.
	e.ok(testPass+"\n", conf, "unlock", "--passphrase-stdin")

	// A keyfile put beside the vault on purpose is accepted with a warning.
	e2 := newEnv(t)
	e2.initVault()
	beside := filepath.Join(filepath.Dir(e2.vault), "vault.key")
	r = e2.run(testPass+"\n", nil, "--keyfile", beside, "2fa", "enable", "--passphrase-stdin")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: the keyfile is in the vault's directory") {
		t.Fatalf("keyfile beside the vault: exit %d, stderr %q", r.code, r.stderr)
	}
}
