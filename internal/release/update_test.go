package release

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"v1.0.1", "v1.0.0", 1},
		{"v1.0.0", "v1.0.1", -1},
		{"v1.10.0", "v1.9.9", 1},
		{"1.2.3", "v1.2.3", 0},
		{"v1.0.0", "v1.0.0-rc.1", 1},
		{"v1.0.0-rc.2", "v1.0.0-rc.10", -1},
		{"v1.0.0-rc.1", "v1.0.0-beta", 1}, {"v1.0.0-1", "v1.0.0-alpha", -1},
		{"v1.0.1-test", "v1.0.0-test", 1},
		{"v0.0.0-12-gdeadbee", "v0.0.0-9-gabc1234", 1},
		{"v1.2.0-3-gabc1234", "v1.2.0", 1},
		{"v1.2.0-3-gabc1234-dirty", "v1.2.0-3-gabc1234", 0},
		{"v2.0.0-rc.1-4-gabc1234", "v2.0.0-rc.1", 1},
	} {
		got, ok := compareVersions(c.a, c.b)
		if !ok || got != c.want {
			t.Errorf("compare(%s, %s) = %d %v, want %d", c.a, c.b, got, ok, c.want)
		}
	}
	for _, bad := range []string{"dev", "cf8298c", "v1.2", "v1.2.3.4", "", "v1.2.3 "} {
		if _, ok := compareVersions(bad, "v1.0.0"); ok {
			t.Errorf("%q ordered as a release version", bad)
		}
	}
}

// TestCheckVersion: #27 item 8. A correctly signed older version is
// refused unless the downgrade is allowed; so is one that cannot be
// ordered against the installed one; a newer or equal one passes.
func TestCheckVersion(t *testing.T) {
	for _, c := range []struct{ installed, cand string }{
		{"v1.0.1", "v1.0.0"}, {"v1.0.0", "v1.0.0-rc.1"}, {"v1.0.0", "dev"}, {"", "v9.0.0"}, {"dev", "cf8298c"},
	} {
		err := CheckVersion(c.installed, c.cand, false)
		if !errors.Is(err, ErrDowngrade) || !strings.Contains(err.Error(), "--allow-downgrade") {
			t.Errorf("%s over %s: %v", c.cand, c.installed, err)
		}
		if err := CheckVersion(c.installed, c.cand, true); err != nil {
			t.Errorf("%s over %s allowed: %v", c.cand, c.installed, err)
		}
	}
	// A development build moves to a release; the other way needs the flag.
	for _, c := range []struct{ installed, cand string }{{"v1.0.0", "v1.0.1"}, {"v1.0.0", "v1.0.0"}, {"dev", "v0.0.0-296-g677e5b4"}, {"cf8298c", "v1.0.0"}} {
		if err := CheckVersion(c.installed, c.cand, false); err != nil {
			t.Errorf("%s over %s: %v", c.cand, c.installed, err)
		}
	}
}

// updateCase is an installed binary and a signed candidate beside it.
type updateCase struct {
	target, cand string
	priv         ed25519.PrivateKey
	pub          ed25519.PublicKey
}

func newUpdateCase(t *testing.T, candVersion string) *updateCase {
	t.Helper()
	dir := t.TempDir()
	priv, pub := testKey(t, dir)
	c := &updateCase{target: filepath.Join(dir, "inst", "compartment"), cand: filepath.Join(dir, "new", "compartment"), priv: priv, pub: pub}
	os.MkdirAll(filepath.Dir(c.target), 0o755)
	os.MkdirAll(filepath.Dir(c.cand), 0o755)
	writeFile(t, c.target, []byte("the installed binary"))
	writeFile(t, c.cand, []byte("the candidate binary"))
	sig, err := SignBinary(priv, c.cand, BinarySig{Version: candVersion, Target: "linux/amd64", VaultFormat: 1})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(filepath.Dir(c.cand), "compartment.sig"), sig)
	return c
}

func (c *updateCase) update(installed string, allow bool) Update {
	return Update{From: c.cand, Target: c.target, Installed: installed, Keys: []ed25519.PublicKey{c.pub},
		Platform: "linux/amd64", BuildFormat: 1, AllowDowngrade: allow}
}

// TestUpdateRun: the candidate replaces the target by rename with its
// signature beside it; an older one is refused and nothing changes, until
// the downgrade is allowed.
func TestUpdateRun(t *testing.T) {
	c := newUpdateCase(t, "v1.0.0")
	if _, err := c.update("v1.0.1", false).Run(); !errors.Is(err, ErrDowngrade) {
		t.Fatalf("downgrade: %v", err)
	}
	if b, _ := os.ReadFile(c.target); string(b) != "the installed binary" {
		t.Fatal("a refused downgrade changed the target")
	}
	if _, err := os.Stat(SigPathFor(c.target)); err == nil {
		t.Fatal("a refused downgrade wrote a signature")
	}
	rep, err := c.update("v1.0.1", true).Run()
	if err != nil || !rep.Updated || rep.From != "v1.0.1" || rep.To != "v1.0.0" {
		t.Fatalf("allowed downgrade: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(c.target); string(b) != "the candidate binary" {
		t.Fatal("the target was not replaced")
	}
	sig, _ := os.ReadFile(SigPathFor(c.target))
	if _, err := VerifyBinary(c.target, sig, []ed25519.PublicKey{c.pub}); err != nil {
		t.Fatalf("the signature beside the new binary: %v", err)
	}
	if rep, err := c.update("v1.0.0", false).Run(); err != nil || rep.Updated || !strings.Contains(rep.Note, "already installed") {
		t.Fatalf("same binary again: %+v %v", rep, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(c.target))
	if len(entries) != 2 {
		t.Fatalf("staging left files behind: %v", entries)
	}
}

// TestUpdateRefusalsSayWhatToDo: #28. Each refusal names a next step.
func TestUpdateRefusalsSayWhatToDo(t *testing.T) {
	c := newUpdateCase(t, "v2.0.0")
	os.Remove(filepath.Join(filepath.Dir(c.cand), "compartment.sig"))
	_, err := c.update("v1.0.0", false).Run()
	if err == nil || !strings.Contains(err.Error(), "unsigned") || !strings.Contains(err.Error(), "make release") || !strings.Contains(err.Error(), "--key") {
		t.Errorf("unsigned: %v", err)
	}
	c = newUpdateCase(t, "v2.0.0")
	u := c.update("v1.0.0", false)
	u.Keys = nil
	if _, err := u.Run(); err == nil || !strings.Contains(err.Error(), "--key FILE") {
		t.Errorf("no trusted key: %v", err)
	}
	_, other, _ := ed25519.GenerateKey(nil)
	u.Keys = []ed25519.PublicKey{other.Public().(ed25519.PublicKey)}
	if _, err := u.Run(); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "--key FILE") {
		t.Errorf("untrusted: %v", err)
	}
	u = c.update("v1.0.0", false)
	u.Platform = "linux/arm64"
	if _, err := u.Run(); err == nil || !strings.Contains(err.Error(), "bring the linux_arm64 archive") {
		t.Errorf("foreign: %v", err)
	}
	u = c.update("v1.0.0", false)
	u.VaultFormat, u.VaultPath = 2, "/v"
	if _, err := u.Run(); err == nil || !strings.Contains(err.Error(), "use a newer release") {
		t.Errorf("vault format: %v", err)
	}
	if b, _ := os.ReadFile(c.target); string(b) != "the installed binary" {
		t.Fatal("a refusal changed the target")
	}
}

// TestUpdateFromArchiveWithoutProgram: an archive with no compartment in
// it is refused with what to bring instead.
func TestUpdateFromArchiveWithoutProgram(t *testing.T) {
	c := newUpdateCase(t, "v2.0.0")
	u := c.update("v1.0.0", false)
	u.From = filepath.Join(t.TempDir(), "readme.tar.gz")
	writeFile(t, u.From, mustGzipEmptyTar(t))
	if _, err := u.Run(); err == nil || !strings.Contains(err.Error(), "holds no compartment program; give a release archive") {
		t.Fatalf("archive without a program: %v", err)
	}
}
