package release

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMakeBundleForThisSystem: an unsigned development build bundles as
// is, and the report says so; with a release key SHA256SUMS is signed by
// it; a model directory whose manifest does not check refuses the whole
// bundle and writes nothing; a target no release ships to is refused.
func TestMakeBundleForThisSystem(t *testing.T) {
	if !strings.HasPrefix(runtime.GOOS, "linux") && runtime.GOOS != "darwin" {
		t.Skip("bundles this system's program")
	}
	t.Setenv("COMPARTMENT_ORT_LIB", filepath.Join(t.TempDir(), "none.so"))
	dir := t.TempDir()
	self := filepath.Join(dir, "compartment")
	writeFile(t, self, []byte("program bytes"))
	out := filepath.Join(dir, "b.tar.gz")
	rep, err := MakeBundle(BundleRequest{Out: out, Self: self, Version: "v0.0.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Signed || rep.SumsSigned || rep.Version != "v0.0.0-test" || rep.Target != runtime.GOOS+"/"+runtime.GOARCH {
		t.Fatalf("report: %+v", rep)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "unsigned, a development build") || !strings.Contains(notes, "COMPARTMENT_ALLOW_UNSIGNED=1") {
		t.Fatalf("notes do not say the bundle is unsigned:\n%s", notes)
	}
	got, _, err := ExtractBinary(out, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); string(b) != "program bytes" {
		t.Fatalf("bundled program: %q", b)
	}
	var size int64
	for _, f := range rep.Files {
		size += f.Size
	}
	if rep.Size() != size || size == 0 || !strings.HasPrefix(rep.InstallCommand(), "sh ") {
		t.Fatalf("size %d of %d, install %q", rep.Size(), size, rep.InstallCommand())
	}

	_, pub := testKey(t, dir)
	signed := filepath.Join(dir, "signed.tar.gz")
	rep, err = MakeBundle(BundleRequest{Out: signed, Self: self, Version: "v0.0.0-test", SignKeyFile: filepath.Join(dir, "release.key")})
	if err != nil || !rep.SumsSigned || !strings.Contains(strings.Join(rep.Notes, "\n"), "SHA256SUMS signed by "+FormatKey(pub)) {
		t.Fatalf("signed bundle: %+v %v", rep, err)
	}

	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	writeFile(t, filepath.Join(model, "manifest.json"), []byte(`{"name":"tiny","files":{"model.onnx":"00"}}`))
	bad := filepath.Join(dir, "bad.tar.gz")
	if _, err := MakeBundle(BundleRequest{Out: bad, Self: self, Models: []string{model}}); err == nil || !strings.Contains(err.Error(), "--with-model "+model) {
		t.Fatalf("unchecked model: %v", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused bundle was written: %v", err)
	}
	if _, err := MakeBundle(BundleRequest{Out: bad, Self: self, GOOS: "plan9", GOARCH: "amd64"}); err == nil || !strings.Contains(err.Error(), "not a release target") {
		t.Fatalf("foreign target: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 6 { // compartment, b, signed, release.key(.pub), model
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// TestRunUpdate: the key file given is trusted besides the built-in
// keys; the vault on disk is read for its format, so a binary that could
// not read it is refused and nothing changes; a file that is not a vault
// does not stop the update, which then replaces the target (once
// allowed: the installed version is unknown).
func TestRunUpdate(t *testing.T) {
	if runtime.GOOS+"/"+runtime.GOARCH != "linux/amd64" {
		t.Skip("the test candidate is signed for linux/amd64")
	}
	t.Setenv("COMPARTMENT_EMBED_SOCKET", filepath.Join(t.TempDir(), "no-daemon.sock"))
	c := newUpdateCase(t, "v1.0.1")
	keyFile := filepath.Join(t.TempDir(), "release.pub")
	writeFile(t, keyFile, []byte(FormatKey(c.pub)+"\n"))
	vaultPath := filepath.Join(t.TempDir(), "memory.vault")
	writeFile(t, vaultPath, []byte("\x89CMPVLT\n\x07\x00rest"))
	req := UpdateRequest{From: c.cand, Target: c.target, KeyFile: keyFile, VaultPath: vaultPath, Version: "v1.0.0", BuildFormat: 1}
	if _, err := RunUpdate(req); err == nil || !strings.Contains(err.Error(), "is format 7") {
		t.Fatalf("a binary that cannot read the vault: %v", err)
	}
	if b, _ := os.ReadFile(c.target); string(b) != "the installed binary" {
		t.Fatal("a refused update changed the target")
	}
	if _, err := RunUpdate(UpdateRequest{From: c.cand, Target: c.target, VaultPath: vaultPath, BuildFormat: 1}); err == nil || !strings.Contains(err.Error(), "--key FILE") {
		t.Fatalf("without the key file: %v", err)
	}
	writeFile(t, vaultPath, []byte("not a vault"))
	// The installed binary has no trusted signature beside it, so its
	// version is unknown: only an explicit downgrade replaces it.
	if _, err := RunUpdate(req); !errors.Is(err, ErrDowngrade) {
		t.Fatalf("over an unknown version: %v", err)
	}
	req.AllowDowngrade = true
	rep, err := RunUpdate(req)
	if err != nil || !rep.Updated || rep.To != "v1.0.1" || rep.DaemonRestarted {
		t.Fatalf("update: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(c.target); string(b) != "the candidate binary" {
		t.Fatal("the target was not replaced")
	}
}
