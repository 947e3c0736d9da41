//go:build unix

package main

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/vaultfmt"
)

// installCase is one unpacked copy of a bundle and an empty home to
// install it into.
type installCase struct {
	top, home string
}

// unpackBundle extracts bundle into a fresh directory.
func unpackBundle(t *testing.T, bundle string) installCase {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", bundle, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o700)
	return installCase{top: filepath.Join(dir, release.BundleTop), home: home}
}

// install runs the bundle's real install.sh with an empty HOME and no
// compartment on PATH (or the one at installed, when given).
func (c installCase) install(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(c.top, "install.sh"))
	cmd.Env = append([]string{"HOME=" + c.home, "PATH=/usr/bin:/bin", "LANG=C"}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// installed lists what install.sh left in the home.
func (c installCase) installed(t *testing.T) []string {
	t.Helper()
	var got []string
	filepath.WalkDir(c.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(c.home, p)
			got = append(got, rel)
		}
		return nil
	})
	return got
}

func (c installCase) editSums(t *testing.T, edit func(string) string) {
	t.Helper()
	p := filepath.Join(c.top, "SHA256SUMS")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte(edit(string(b))), 0o644)
}

// signedTestBundle writes a bundle of the release test binary with a
// stand-in ONNX Runtime library and a model, SHA256SUMS signed by sumsKey
// and the program's compartment.sig by binKey.
func signedTestBundle(t *testing.T, sumsKey, binKey ed25519.PrivateKey) string {
	t.Helper()
	bin, _ := releaseBinary(t)
	dir := t.TempDir()
	sig, err := release.SignBinary(binKey, bin, release.BinarySig{Version: testReleaseVersion, Target: goosArch(), VaultFormat: vaultfmt.FormatVersion})
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libonnxruntime.so.1.24.1")
	os.WriteFile(lib, []byte("a stand-in library"), 0o644)
	model := filepath.Join(dir, "model")
	os.MkdirAll(filepath.Join(model, "sub"), 0o755)
	os.WriteFile(filepath.Join(model, "manifest.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(model, "sub", "weights.bin"), []byte("weights"), 0o644)
	out := filepath.Join(dir, "bundle.tar.gz")
	_, err = release.WriteBundle(out, release.BundleOptions{GOOS: "linux", GOARCH: strings.Split(goosArch(), "/")[1], Binary: bin, Signature: sig,
		RuntimeLib: lib, Models: map[string]string{"tiny": model}, SignKey: sumsKey})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInstallShRefusesTamperedBundles: #27 item 9, each attack the audit
// ran against the real install.sh, and more, failing: nothing is
// installed. A pristine bundle installs exactly its listed files.
func TestInstallShRefusesTamperedBundles(t *testing.T) {
	if goosArch() != "linux/amd64" && goosArch() != "linux/arm64" {
		t.Skip("the bundle's program must run here")
	}
	_, priv := releaseBinary(t)
	bundle := signedTestBundle(t, priv, priv)

	good := unpackBundle(t, bundle)
	out, err := good.install(t)
	if err != nil {
		t.Fatalf("pristine bundle: %v\n%s", err, out)
	}
	want := []string{".compartment/lib/libonnxruntime.so.1", ".compartment/lib/libonnxruntime.so.1.24.1",
		".compartment/models/tiny/manifest.json", ".compartment/models/tiny/sub/weights.bin",
		".local/bin/compartment", ".local/bin/compartment.sig"}
	if got := good.installed(t); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pristine bundle installed %v, want %v\n%s", got, want, out)
	}
	if !strings.Contains(out, "signed by release key "+release.FormatKey(priv.Public().(ed25519.PublicKey))) || !strings.Contains(out, "bundle's own program") {
		t.Errorf("the install does not say what checked it:\n%s", out)
	}

	for _, tc := range []struct {
		name, want string
		env        []string
		tamper     func(c installCase)
	}{
		{"an added ONNX Runtime library", "lib/libonnxruntime.so.1.24.2 is in the bundle but not in SHA256SUMS", nil, func(c installCase) {
			os.WriteFile(filepath.Join(c.top, "lib", "libonnxruntime.so.1.24.2"), []byte("evil"), 0o644)
		}},
		{"an added model file", "models/tiny/sub/evil.onnx is in the bundle but not in SHA256SUMS", nil, func(c installCase) {
			os.WriteFile(filepath.Join(c.top, "models", "tiny", "sub", "evil.onnx"), []byte("evil"), 0o644)
		}},
		{"the binary's line removed", "no line for bin/compartment", nil, func(c installCase) {
			c.editSums(t, func(s string) string {
				var keep []string
				for _, l := range strings.SplitAfter(s, "\n") {
					if !strings.HasSuffix(l, "  bin/compartment\n") {
						keep = append(keep, l)
					}
				}
				return strings.Join(keep, "")
			})
			// and the file too, so the list and the files agree
			os.Remove(filepath.Join(c.top, "bin", "compartment"))
		}},
		{"the binary's line removed, the binary kept", "bin/compartment is in the bundle but not in SHA256SUMS", nil, func(c installCase) {
			c.editSums(t, func(s string) string {
				i := strings.Index(s, "  bin/compartment\n")
				return s[:i-64] + s[i+len("  bin/compartment\n"):]
			})
		}},
		{"a replaced library with its line recomputed", "signature does not verify", nil, func(c installCase) {
			p := filepath.Join(c.top, "lib", "libonnxruntime.so.1.24.1")
			os.WriteFile(p, []byte("evil library"), 0o644)
			sum, _, _ := release.FileSHA256(p)
			c.editSums(t, func(s string) string {
				i := strings.Index(s, "  lib/libonnxruntime.so.1.24.1")
				return s[:i-64] + sum + s[i:]
			})
		}},
		{"a changed file", "does not match its checksum", nil, func(c installCase) {
			os.WriteFile(filepath.Join(c.top, "models", "tiny", "manifest.json"), []byte(`{"evil":1}`), 0o644)
		}},
		{"a symlink added", "is not a regular file", nil, func(c installCase) {
			os.Symlink("/etc/passwd", filepath.Join(c.top, "models", "tiny", "link"))
		}},
		{"a listed file missing", "which the bundle does not hold", nil, func(c installCase) {
			os.Remove(filepath.Join(c.top, "models", "tiny", "sub", "weights.bin"))
		}},
		{"a path out of the bundle listed", "which the bundle does not hold", nil, func(c installCase) {
			c.editSums(t, func(s string) string { return s + strings.Repeat("0", 64) + "  ../../.bashrc\n" })
		}},
		{"SHA256SUMS.sig removed", "COMPARTMENT_ALLOW_UNSIGNED=1", nil, func(c installCase) {
			os.Remove(filepath.Join(c.top, "SHA256SUMS.sig"))
		}},
		{"SHA256SUMS.sig removed, unsigned allowed, compartment.sig changed", "does not verify", []string{"COMPARTMENT_ALLOW_UNSIGNED=1"}, func(c installCase) {
			os.Remove(filepath.Join(c.top, "SHA256SUMS.sig"))
			p := filepath.Join(c.top, "bin", "compartment.sig")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(testReleaseVersion), []byte("v9.9.9-test"), 1), 0o644)
			sum, _, _ := release.FileSHA256(p)
			c.editSums(t, func(s string) string {
				i := strings.Index(s, "  bin/compartment.sig")
				return s[:i-64] + sum + s[i:]
			})
		}},
	} {
		c := unpackBundle(t, bundle)
		tc.tamper(c)
		out, err := c.install(t, tc.env...)
		if err == nil || !strings.Contains(out, tc.want) || !strings.Contains(out, "nothing was installed") {
			t.Errorf("%s: want a refusal naming %q, got %v\n%s", tc.name, tc.want, err, out)
		}
		if got := c.installed(t); len(got) != 0 {
			t.Errorf("%s: installed %v", tc.name, got)
		}
	}
}

// TestInstallShChecksWithTheKeysOfUpdate: compartment.sig by a key the
// installed compartment does not trust is refused even when SHA256SUMS is
// signed by a trusted one, and once a compartment is installed its keys
// (not the bundle's) judge the next bundle: a bundle signed throughout by
// another key is refused.
func TestInstallShChecksWithTheKeysOfUpdate(t *testing.T) {
	if goosArch() != "linux/amd64" && goosArch() != "linux/arm64" {
		t.Skip("the bundle's program must run here")
	}
	_, priv := releaseBinary(t)
	_, other, _ := ed25519.GenerateKey(nil)

	c := unpackBundle(t, signedTestBundle(t, priv, other))
	out, err := c.install(t)
	if err == nil || !strings.Contains(out, "not signed by a trusted release key") || len(c.installed(t)) != 0 {
		t.Fatalf("compartment.sig by an untrusted key: %v\n%s", err, out)
	}

	good := unpackBundle(t, signedTestBundle(t, priv, priv))
	if out, err := good.install(t); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	foreign := unpackBundle(t, signedTestBundle(t, other, other))
	foreign.home = good.home
	out, err = foreign.install(t)
	if err == nil || !strings.Contains(out, "not signed by a trusted release key") || !strings.Contains(out, "nothing was installed") {
		t.Fatalf("a bundle signed by another key over an install: %v\n%s", err, out)
	}
	// The same bundle checked by the installed program says so.
	out, err = good.install(t)
	if err != nil || !strings.Contains(out, "checked with the compartment installed at "+filepath.Join(good.home, ".local", "bin", "compartment")) {
		t.Fatalf("reinstall: %v\n%s", err, out)
	}
}
