package release

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// releaseDir writes a release directory holding one archive for target,
// listed in a SHA256SUMS signed by priv.
func releaseDir(t *testing.T, priv ed25519.PrivateKey, target string) (dir, archive string) {
	t.Helper()
	dir = t.TempDir()
	archive = filepath.Join(dir, "compartment_v1.2.3_"+strings.ReplaceAll(target, "/", "_")+".tar.gz")
	writeFile(t, archive, []byte("an archive"))
	sum, _, err := FileSHA256(archive)
	if err != nil {
		t.Fatal(err)
	}
	sums := FormatSums(map[string]string{filepath.Base(archive): sum})
	writeFile(t, filepath.Join(dir, "SHA256SUMS"), sums)
	writeFile(t, filepath.Join(dir, "SHA256SUMS.sig"), SignSums(priv, sums))
	return dir, archive
}

// TestVerifiedArchive: the archive is found only through a SHA256SUMS a
// trusted key signed, and only while it matches its listed checksum.
func TestVerifiedArchive(t *testing.T) {
	priv, pub := testKey(t, t.TempDir())
	dir, archive := releaseDir(t, priv, "linux/arm64")
	keys := []ed25519.PublicKey{pub}
	if got, err := VerifiedArchive(dir, "linux/arm64", keys); err != nil || got != archive {
		t.Fatalf("VerifiedArchive = %q, %v; want %q", got, err, archive)
	}
	if _, err := VerifiedArchive(dir, "darwin/arm64", keys); err == nil || !strings.Contains(err.Error(), "lists no archive for darwin/arm64") {
		t.Errorf("another target: %v", err)
	}
	_, other := testKey(t, t.TempDir())
	if _, err := VerifiedArchive(dir, "linux/arm64", []ed25519.PublicKey{other}); !errors.Is(err, ErrUntrusted) {
		t.Errorf("sums signed by a key not trusted: %v, want ErrUntrusted", err)
	}
	writeFile(t, archive, []byte("another archive"))
	if _, err := VerifiedArchive(dir, "linux/arm64", keys); err == nil || !strings.Contains(err.Error(), "SHA256SUMS says") {
		t.Errorf("an archive changed after signing: %v", err)
	}
	os.Remove(filepath.Join(dir, "SHA256SUMS.sig"))
	if _, err := VerifiedArchive(dir, "linux/arm64", keys); err == nil {
		t.Error("a release without SHA256SUMS.sig was accepted")
	}
}

// TestFindBundleSourceThisProgram: without a release directory the bundle
// takes this program, says whether it is signed by a trusted key, and
// refuses another system.
func TestFindBundleSourceThisProgram(t *testing.T) {
	_, pub, bin, sig := signedBinary(t)
	here := runtime.GOOS + "/" + runtime.GOARCH
	src, err := FindBundleSource(here, "", t.TempDir(), bin, "v1.2.3", nil)
	if err != nil || src.Sig != nil || !strings.Contains(src.Note, "unsigned") {
		// bin's signature is not beside it yet: an unsigned build.
		t.Fatalf("unsigned: %+v %v", src, err)
	}
	writeFile(t, SigPathFor(bin), sig)
	if src, err = FindBundleSource(here, "", t.TempDir(), bin, "v1.2.3", []ed25519.PublicKey{pub}); err != nil || src.Sig == nil || !strings.Contains(src.Note, "signed by "+FormatKey(pub)) {
		t.Errorf("signed by a trusted key: %+v %v", src, err)
	}
	if src, err = FindBundleSource(here, "", t.TempDir(), bin, "v1.2.3", nil); err != nil || !strings.Contains(src.Note, "does not trust") {
		t.Errorf("signed by a key not trusted: %+v %v", src, err)
	}
	writeFile(t, bin, []byte("a changed binary"))
	if _, err = FindBundleSource(here, "", t.TempDir(), bin, "v1.2.3", []ed25519.PublicKey{pub}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("a binary changed after signing: %v", err)
	}
	other := "windows/amd64"
	if here == other {
		other = "linux/amd64"
	}
	if _, err = FindBundleSource(other, "", t.TempDir(), bin, "v1.2.3", nil); err == nil || !strings.Contains(err.Error(), "--release DIR") {
		t.Errorf("another system without a release: %v", err)
	}
}
