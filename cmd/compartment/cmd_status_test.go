package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// statusLocked runs status with no credential at all (no passphrase in the
// environment, no unlock session), as the panel does before unlocking.
func statusLocked(c *memCLI, args ...string) string {
	c.t.Helper()
	var env []string
	for _, kv := range c.env(memCLIPass) {
		if !strings.HasPrefix(kv, "COMPARTMENT_PASSPHRASE=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(c.bin, append([]string{"status"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("status %s on a locked vault: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// lockedStatusJSON decodes a locked status and checks it says only what
// the plaintext header and the file's size say.
func lockedStatusJSON(c *memCLI) map[string]any {
	c.t.Helper()
	out := statusLocked(c, "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		c.t.Fatalf("status --json: %v\n%s", err, out)
	}
	var keys []string
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"file_bytes", "keyfile_required", "locked", "path"}; !slices.Equal(keys, want) || st["locked"] != true {
		c.t.Fatalf("locked status --json has %v (locked=%v), want exactly %v", keys, st["locked"], want)
	}
	return st
}

// TestLockedStatusSaysWhetherAKeyfileIsNeeded: a locked vault's status
// tells from its key slots' kinds whether unlocking needs the keyfile, for
// a vault without two-factor unlock, with it, and after it is turned off.
func TestLockedStatusSaysWhetherAKeyfileIsNeeded(t *testing.T) {
	c := newMemCLI(t)
	c.store("The staging database runs on port 5433")
	if st := lockedStatusJSON(c); st["keyfile_required"] != false {
		t.Fatalf("a passphrase-only vault: keyfile_required=%v", st["keyfile_required"])
	}
	if out := statusLocked(c); !strings.Contains(out, "the passphrase alone unlocks") || strings.Contains(out, "staging") {
		t.Errorf("human status of a passphrase-only locked vault:\n%s", out)
	}

	kf := filepath.Join(c.dir, "media", "memory.keyfile")
	if err := os.MkdirAll(filepath.Dir(kf), 0o700); err != nil {
		t.Fatal(err)
	}
	c.ok("--keyfile", kf, "2fa", "enable")
	if st := lockedStatusJSON(c); st["keyfile_required"] != true {
		t.Fatalf("after 2fa enable: keyfile_required=%v", st["keyfile_required"])
	}
	if out := statusLocked(c); !strings.Contains(out, "needs the passphrase and the keyfile") {
		t.Errorf("human status of a two-factor locked vault:\n%s", out)
	}
	// The answer is the header's, not the config's remembered keyfile:
	// with the keyfile gone (the USB stick pulled) it is still required.
	hidden := kf + ".away"
	if err := os.Rename(kf, hidden); err != nil {
		t.Fatal(err)
	}
	if st := lockedStatusJSON(c); st["keyfile_required"] != true {
		t.Fatalf("with the keyfile away: keyfile_required=%v", st["keyfile_required"])
	}
	if err := os.Rename(hidden, kf); err != nil {
		t.Fatal(err)
	}

	c.ok("2fa", "disable")
	if st := lockedStatusJSON(c); st["keyfile_required"] != false {
		t.Fatalf("after 2fa disable: keyfile_required=%v", st["keyfile_required"])
	}
}
