package release

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// BundleSource is the program chosen for an airgap bundle, and the panel
// that goes with it.
type BundleSource struct {
	Path, Version, Note string
	Sig                 []byte // nil: an unsigned development build
	Panel, PanelFrom    string // "" when the target has none here
}

// FindBundleSource finds the binary for target (GOOS/GOARCH): from a
// release directory (every signature checked against keys), or this very
// program (self, at version) when target is this system. tmp receives
// what is extracted from a release archive.
func FindBundleSource(target, releaseDir, tmp, self, version string, keys []ed25519.PublicKey) (BundleSource, error) {
	if releaseDir != "" {
		return releaseSource(target, releaseDir, tmp, keys)
	}
	if here := runtime.GOOS + "/" + runtime.GOARCH; target != here {
		return BundleSource{}, fmt.Errorf("airgap-bundle: this program is for %s; for %s give --release DIR with the release archives (make release)", here, target)
	}
	exe, err := filepath.EvalSymlinks(self)
	if err != nil {
		return BundleSource{}, fmt.Errorf("airgap-bundle: %w", err)
	}
	b := BundleSource{Path: exe, Version: version}
	panel := filepath.Join(filepath.Dir(exe), "compartment-panel")
	if runtime.GOOS == "windows" {
		panel += ".exe"
	}
	if fi, err := os.Stat(panel); err == nil && fi.Mode().IsRegular() {
		b.Panel, b.PanelFrom = panel, panel
	}
	sig, sigPath := SignatureBeside(exe)
	if sig == nil {
		b.Note = "this program (" + exe + ") is unsigned, a development build: the bundle installs, but `compartment update` will not accept it"
		return b, nil
	}
	s, err := VerifyBinary(exe, sig, keys)
	switch {
	case errors.Is(err, ErrUntrusted):
		b.Note = "this program's signature (" + sigPath + ") is by a key this build does not trust: " + err.Error()
	case err != nil:
		return BundleSource{}, fmt.Errorf("airgap-bundle: %s does not match %s: %w", sigPath, exe, err)
	default:
		b.Note = "this program, signed by " + FormatKey(s.Key)
	}
	b.Sig = sig
	return b, nil
}

// releaseSource takes target's binary and panel out of its archive in a
// release directory, checking the archive against the signed SHA256SUMS
// and the binary against its own signature.
func releaseSource(target, dir, tmp string, keys []ed25519.PublicKey) (BundleSource, error) {
	archive, err := VerifiedArchive(dir, target, keys)
	if err != nil {
		return BundleSource{}, err
	}
	bin, sig, err := ExtractBinary(archive, tmp)
	if err != nil {
		return BundleSource{}, err
	}
	s, err := VerifyBinary(bin, sig, keys)
	if err != nil {
		return BundleSource{}, fmt.Errorf("airgap-bundle: %s: %w", archive, err)
	}
	if s.Target != target {
		return BundleSource{}, fmt.Errorf("airgap-bundle: %s holds a binary for %s, not %s", archive, s.Target, target)
	}
	panel, err := ExtractPanel(archive, tmp)
	if err != nil {
		return BundleSource{}, err
	}
	return BundleSource{Path: bin, Sig: sig, Version: s.Version, Panel: panel, PanelFrom: filepath.Base(archive),
		Note: "binary from " + filepath.Base(archive) + ", signed by " + FormatKey(s.Key)}, nil
}

// VerifiedArchive finds target's archive in a release directory and checks
// it against SHA256SUMS, whose signature must be by one of keys.
func VerifiedArchive(dir, target string, keys []ed25519.PublicKey) (string, error) {
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	sig, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS.sig"))
	if err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	if _, err := VerifySums(sums, sig, keys); err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	list, err := ParseSums(sums)
	if err != nil {
		return "", err
	}
	suffix := "_" + strings.ReplaceAll(target, "/", "_") + ".tar.gz"
	for name, want := range list {
		if !strings.HasPrefix(name, "compartment_") || !strings.HasSuffix(name, suffix) {
			continue
		}
		path := filepath.Join(dir, name)
		got, _, err := FileSHA256(path)
		if err != nil {
			return "", err
		}
		if got != want {
			return "", fmt.Errorf("release %s: %s has SHA-256 %s, SHA256SUMS says %s", dir, name, got, want)
		}
		return path, nil
	}
	return "", fmt.Errorf("release %s: SHA256SUMS lists no archive for %s", dir, target)
}
