package main

import (
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/vaultfmt"
)

// testReleaseVersion is the version the release-like test binary reports.
const testReleaseVersion = "v1.0.0-test"

// relBin is a binary built the way make release builds one: a version and
// a release key it trusts (made for this test run), signed by that key.
var relBin struct {
	once      sync.Once
	dir, path string
	priv      ed25519.PrivateKey
	err       error
	out       []byte
}

// releaseBinary returns the path of the release-like binary (with its
// compartment.sig beside it) and the release private key.
func releaseBinary(t *testing.T) (string, ed25519.PrivateKey) {
	t.Helper()
	relBin.once.Do(func() {
		relBin.dir, relBin.err = os.MkdirTemp("", "compartment-release-test")
		if relBin.err != nil {
			return
		}
		keyPath := filepath.Join(relBin.dir, "release.key")
		pub, err := release.GenerateKey(keyPath)
		if err != nil {
			relBin.err = err
			return
		}
		if relBin.priv, relBin.err = release.LoadPrivateKey(keyPath); relBin.err != nil {
			return
		}
		relBin.path = filepath.Join(relBin.dir, "bin", "compartment")
		ldflags := "-X main.version=" + testReleaseVersion +
			" -X github.com/compartment/compartment/internal/release.buildKey=" + release.FormatKey(pub)
		relBin.out, relBin.err = exec.Command("go", "build", "-ldflags", ldflags, "-o", relBin.path, ".").CombinedOutput()
		if relBin.err != nil {
			return
		}
		relBin.err = signTestBinary(relBin.priv, relBin.path, testReleaseVersion)
	})
	if relBin.err != nil {
		t.Fatalf("release test binary: %v\n%s", relBin.err, relBin.out)
	}
	return relBin.path, relBin.priv
}

// releaseKeyFile is the private key file of releaseBinary's release key.
func releaseKeyFile(t *testing.T) string {
	releaseBinary(t)
	return filepath.Join(relBin.dir, "release.key")
}

// signTestBinary writes compartment.sig beside bin for this system.
func signTestBinary(priv ed25519.PrivateKey, bin, version string) error {
	sig, err := release.SignBinary(priv, bin, release.BinarySig{Version: version,
		Target: goosArch(), VaultFormat: vaultfmt.FormatVersion})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(bin), "compartment.sig"), sig, 0o644)
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
}
