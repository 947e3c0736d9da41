package release

import (
	"crypto/ed25519"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bundleDir writes a bundle with o and unpacks it, returning its top
// directory.
func bundleDir(t *testing.T, o BundleOptions) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "b.tar.gz")
	if _, err := WriteBundle(out, o); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("tar", "-xzf", out, "-C", dir).CombinedOutput(); err != nil {
		t.Skipf("no tar here: %v %s", err, b)
	}
	return filepath.Join(dir, BundleTop)
}

func verifyCase(t *testing.T) (BundleOptions, ed25519.PublicKey) {
	t.Helper()
	dir := t.TempDir()
	priv, pub := testKey(t, dir)
	bin := filepath.Join(dir, "compartment")
	writeFile(t, bin, []byte("program bytes"))
	sig, err := SignBinary(priv, bin, BinarySig{Version: "v1.0.0", Target: "linux/amd64", VaultFormat: 1})
	if err != nil {
		t.Fatal(err)
	}
	panel := filepath.Join(dir, "compartment-panel")
	writeFile(t, panel, []byte("panel bytes"))
	return BundleOptions{GOOS: "linux", GOARCH: "amd64", Binary: bin, Signature: sig, Panel: panel, SignKey: priv}, pub
}

// TestVerifyBundle: a signed bundle passes and says what it holds;
// an added file, an untrusted key or a missing SHA256SUMS.sig fail.
func TestVerifyBundle(t *testing.T) {
	o, pub := verifyCase(t)
	top := bundleDir(t, o)
	keys := []ed25519.PublicKey{pub}
	chk, err := VerifyBundle(top, keys, "linux/amd64", false)
	if err != nil || chk.Version != "v1.0.0" || !chk.Signer.Equal(pub) {
		t.Fatalf("pristine: %+v %v", chk, err)
	}
	if strings.Join(chk.Files, " ") != "INSTALL.txt bin/compartment bin/compartment-panel bin/compartment.sig install.sh" {
		t.Fatalf("files: %v", chk.Files)
	}
	if _, err := VerifyBundle(top, keys, "darwin/arm64", false); err == nil {
		t.Error("a bundle for another system passed")
	}
	_, other, _ := ed25519.GenerateKey(nil)
	if _, err := VerifyBundle(top, []ed25519.PublicKey{other.Public().(ed25519.PublicKey)}, "linux/amd64", false); !errors.Is(err, ErrUntrusted) {
		t.Errorf("untrusted key: %v", err)
	}
	os.MkdirAll(filepath.Join(top, "lib"), 0o755)
	writeFile(t, filepath.Join(top, "lib", "libonnxruntime.so.1.24.1"), []byte("evil"))
	if _, err := VerifyBundle(top, keys, "linux/amd64", false); err == nil || !strings.Contains(err.Error(), "not in SHA256SUMS") {
		t.Errorf("added library: %v", err)
	}
	os.RemoveAll(filepath.Join(top, "lib"))
	os.Remove(filepath.Join(top, "SHA256SUMS.sig"))
	if _, err := VerifyBundle(top, keys, "linux/amd64", false); !errors.Is(err, ErrUnsignedBundle) {
		t.Errorf("unsigned: %v", err)
	}
	if _, err := VerifyBundle(top, keys, "linux/amd64", true); err != nil {
		t.Errorf("unsigned, allowed: %v", err)
	}
}

// TestInstallTextMatchesBundle: #28. INSTALL.txt names the files the
// bundle holds and no other: no compartment.sig or SHA256SUMS.sig in an
// unsigned bundle, the panel only when it is there.
func TestInstallTextMatchesBundle(t *testing.T) {
	o, _ := verifyCase(t)
	read := func(top string) string {
		b, err := os.ReadFile(filepath.Join(top, "INSTALL.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	signed := read(bundleDir(t, o))
	for _, want := range []string{"bin/compartment ", "bin/compartment.sig", "bin/compartment-panel", "SHA256SUMS.sig", "sh install.sh"} {
		if !strings.Contains(signed, want) {
			t.Errorf("signed bundle's INSTALL.txt does not name %q:\n%s", want, signed)
		}
	}
	o.Signature, o.SignKey, o.Panel = nil, nil, ""
	unsigned := read(bundleDir(t, o))
	for _, absent := range []string{"compartment.sig", "SHA256SUMS.sig", "compartment-panel", "lib/"} {
		if strings.Contains(unsigned, absent) {
			t.Errorf("unsigned bundle's INSTALL.txt names %q, which it does not hold:\n%s", absent, unsigned)
		}
	}
	if !strings.Contains(unsigned, "COMPARTMENT_ALLOW_UNSIGNED=1") {
		t.Errorf("unsigned bundle's INSTALL.txt does not say how it installs:\n%s", unsigned)
	}
}
