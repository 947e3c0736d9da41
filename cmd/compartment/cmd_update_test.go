//go:build unix

package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/vaultfmt"
)

// updateFixture is an installed release binary, a newer signed candidate,
// a vault and a private embedding-daemon socket.
type updateFixture struct {
	installed, candidate, vault string
	priv                        ed25519.PrivateKey
	env                         []string
}

func newUpdateFixture(t *testing.T) *updateFixture {
	t.Helper()
	bin, priv := releaseBinary(t)
	dir := t.TempDir()
	f := &updateFixture{installed: filepath.Join(dir, "inst", "compartment"), priv: priv,
		candidate: filepath.Join(dir, "new", "compartment"), vault: filepath.Join(dir, "home", "memory.vault")}
	copyFile(t, bin, f.installed, 0o755)
	copyFile(t, filepath.Join(filepath.Dir(bin), "compartment.sig"), filepath.Join(dir, "inst", "compartment.sig"), 0o644)
	// The candidate is the same program with bytes appended (an ELF or
	// Mach-O binary still runs), so it is a different file to install.
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(f.candidate), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.candidate, append(data, "\ncompartment update test\n"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := signTestBinary(priv, f.candidate, "v1.0.1-test"); err != nil {
		t.Fatal(err)
	}
	f.env = append(os.Environ(), "COMPARTMENT_VAULT="+f.vault, "COMPARTMENT_PASSPHRASE=update test passphrase",
		"COMPARTMENT_EMBED_SOCKET="+filepath.Join(dir, "run", "embed.sock"), "HOME="+filepath.Join(dir, "home"))
	if out, err := f.run("init", "--no-app"); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	return f
}

// run runs the installed binary.
func (f *updateFixture) run(args ...string) ([]byte, error) {
	cmd := exec.Command(f.installed, args...)
	cmd.Env = f.env
	return cmd.CombinedOutput()
}

func sha(t *testing.T, path string) string {
	t.Helper()
	s, _, err := release.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// TestUpdateReplacesAtomicallyAndRestartsDaemon: a signed newer binary
// replaces the installed one by rename (new inode, new bytes, signature
// beside it), the running embedding daemon of the old binary is stopped so
// the next client starts the new one, and the report says what changed.
func TestUpdateReplacesAtomicallyAndRestartsDaemon(t *testing.T) {
	f := newUpdateFixture(t)
	daemon := exec.Command(f.installed, "embed-daemon", "run")
	daemon.Env = f.env
	var dlog bytes.Buffer
	daemon.Stdout, daemon.Stderr = &dlog, &dlog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- daemon.Wait() }()
	waitUntil(t, "the daemon to listen", func() bool {
		out, _ := f.run("embed-daemon", "status", "--json")
		return bytes.Contains(out, []byte(`"running": true`))
	})
	oldInode := inode(t, f.installed)

	out, err := f.run("update", "--from", f.candidate, "--json", "--binary", f.installed)
	if err != nil {
		t.Fatalf("update: %v\n%s", err, out)
	}
	var rep release.UpdateReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.Updated || rep.From != testReleaseVersion || rep.To != "v1.0.1-test" || !rep.DaemonRestarted ||
		rep.VaultFormatTo != vaultfmt.FormatVersion || rep.Signer != release.FormatKey(f.priv.Public().(ed25519.PublicKey)) {
		t.Fatalf("report: %+v", rep)
	}
	if sha(t, f.installed) != sha(t, f.candidate) || inode(t, f.installed) == oldInode {
		t.Fatal("the installed binary was not replaced by rename with the candidate")
	}
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the old daemon still runs after the update\n%s", dlog.String())
	}
	// The new binary works, sees the same vault, and its signature
	// verifies: a second update from the same file is a no-op.
	if out, err := f.run("store", "written after the update", "--source", "test"); err != nil {
		t.Fatalf("store with the new binary: %v\n%s", err, out)
	}
	out, err = f.run("update", "--from", f.candidate, "--binary", f.installed)
	if err != nil || !strings.Contains(string(out), "already installed") {
		t.Fatalf("second update: %v\n%s", err, out)
	}
}

// TestUpdateRefuses: an unsigned, tampered, untrusted, foreign or
// format-downgrading binary is refused and the installed one is untouched.
func TestUpdateRefuses(t *testing.T) {
	f := newUpdateFixture(t)
	before := sha(t, f.installed)
	dir := t.TempDir()
	check := func(name, from, want string) {
		t.Helper()
		out, err := f.run("update", "--from", from, "--binary", f.installed)
		if err == nil || !strings.Contains(string(out), want) {
			t.Fatalf("%s: want a refusal mentioning %q, got %v\n%s", name, want, err, out)
		}
		if sha(t, f.installed) != before {
			t.Fatalf("%s: the installed binary changed", name)
		}
	}
	candidateCopy := func(name string) string {
		p := filepath.Join(dir, name, "compartment")
		copyFile(t, f.candidate, p, 0o755)
		return p
	}

	unsigned := candidateCopy("unsigned")
	check("unsigned", unsigned, "unsigned")

	tampered := candidateCopy("tampered")
	copyFile(t, filepath.Join(filepath.Dir(f.candidate), "compartment.sig"), filepath.Join(filepath.Dir(tampered), "compartment.sig"), 0o644)
	data, _ := os.ReadFile(tampered)
	data[len(data)/2] ^= 1
	os.WriteFile(tampered, data, 0o755)
	check("tampered", tampered, "does not verify")

	untrusted := candidateCopy("untrusted")
	_, other, _ := ed25519.GenerateKey(nil)
	sig, err := release.SignBinary(other, untrusted, release.BinarySig{Version: "v9", Target: goosArch(), VaultFormat: vaultfmt.FormatVersion})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(filepath.Dir(untrusted), "compartment.sig"), sig, 0o644)
	check("untrusted", untrusted, "not signed by a trusted release key")

	foreign := candidateCopy("foreign")
	sig, _ = release.SignBinary(f.priv, foreign, release.BinarySig{Version: "v9", Target: "plan9/amd64", VaultFormat: vaultfmt.FormatVersion})
	os.WriteFile(filepath.Join(filepath.Dir(foreign), "compartment.sig"), sig, 0o644)
	check("foreign", foreign, "is for plan9/amd64")

	// A vault written in a newer format than the candidate reads.
	raw, err := os.ReadFile(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	newer := append([]byte(nil), raw...)
	newer[8] = byte(vaultfmt.FormatVersion + 1)
	os.WriteFile(f.vault, newer, 0o600)
	check("downgrade", f.candidate, "refusing to downgrade")
	os.WriteFile(f.vault, raw, 0o600)
}

// TestUpdateWithoutFromNeverDownloads: with no --from it explains where a
// release comes from and changes nothing, even under --assert-offline.
func TestUpdateWithoutFromNeverDownloads(t *testing.T) {
	f := newUpdateFixture(t)
	before := sha(t, f.installed)
	out, err := f.run("--assert-offline", "update", "--binary", f.installed)
	if err != nil || !strings.Contains(string(out), "never downloads") || !strings.Contains(string(out), "--from") {
		t.Fatalf("update without --from: %v\n%s", err, out)
	}
	if sha(t, f.installed) != before {
		t.Fatal("the binary changed")
	}
}

// TestUpdateFromBundle: an airgap bundle made by the new binary updates
// the installed one.
func TestUpdateFromBundle(t *testing.T) {
	f := newUpdateFixture(t)
	bundle := filepath.Join(t.TempDir(), "b.tar.gz")
	mk := exec.Command(f.candidate, "setup", "airgap-bundle", bundle)
	mk.Env = f.env
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("bundle: %v\n%s", err, out)
	}
	out, err := f.run("update", "--from", bundle, "--binary", f.installed)
	if err != nil || !strings.Contains(string(out), "-> v1.0.1-test") {
		t.Fatalf("update from bundle: %v\n%s", err, out)
	}
	if sha(t, f.installed) != sha(t, f.candidate) {
		t.Fatal("not replaced with the bundle's binary")
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestUpdateRefusesOlderVersion: #27 item 8. A correctly signed older
// version is refused, naming --allow-downgrade; with it, it installs.
func TestUpdateRefusesOlderVersion(t *testing.T) {
	f := newUpdateFixture(t)
	if err := signTestBinary(f.priv, f.candidate, "v0.9.0"); err != nil {
		t.Fatal(err)
	}
	before := sha(t, f.installed)
	out, err := f.run("update", "--from", f.candidate, "--binary", f.installed)
	if err == nil || !strings.Contains(string(out), "older than the installed "+testReleaseVersion) || !strings.Contains(string(out), "--allow-downgrade") {
		t.Fatalf("older version: %v\n%s", err, out)
	}
	if sha(t, f.installed) != before {
		t.Fatal("a refused downgrade replaced the binary")
	}
	out, err = f.run("update", "--from", f.candidate, "--binary", f.installed, "--allow-downgrade")
	if err != nil || !strings.Contains(string(out), testReleaseVersion+" -> v0.9.0") {
		t.Fatalf("--allow-downgrade: %v\n%s", err, out)
	}
	if sha(t, f.installed) != sha(t, f.candidate) {
		t.Fatal("not replaced")
	}
}
