package release

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrUnsignedBundle means a bundle has no SHA256SUMS.sig.
var ErrUnsignedBundle = errors.New("release: the bundle's SHA256SUMS is not signed")

// BundleCheck is what VerifyBundle found.
type BundleCheck struct {
	Version string            // the program's, from its signature ("" unsigned)
	Target  string            // GOOS/GOARCH
	Signer  ed25519.PublicKey // of SHA256SUMS.sig (nil unsigned)
	Files   []string          // every listed file, sorted
}

// VerifyBundle checks an unpacked bundle (its top directory) the way
// install.sh and install.ps1 rely on: SHA256SUMS is signed by one of keys
// (unless allowUnsigned), every file in the bundle is listed (an added
// library or model file is refused, as is anything not a regular file),
// every listed file is there with its checksum, the program and its
// compartment.sig are listed, and compartment.sig verifies under the same
// keys for platform (when not empty).
func VerifyBundle(dir string, keys []ed25519.PublicKey, platform string, allowUnsigned bool) (*BundleCheck, error) {
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil, fmt.Errorf("release: %s has no SHA256SUMS, so it is not a whole bundle; make it again with `compartment setup airgap-bundle`", dir)
	}
	check := &BundleCheck{}
	sig, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS.sig"))
	switch {
	case err == nil:
		if check.Signer, err = VerifySums(sums, sig, keys); err != nil {
			return nil, fmt.Errorf("release: %s/SHA256SUMS.sig: %w; refusing the bundle: get it again from its source, or pass the release key you checked out of band", dir, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("release: %w", err)
	case !allowUnsigned:
		return nil, fmt.Errorf("%w: %s was made without the release key (a development bundle); if you made it yourself, allow it explicitly (COMPARTMENT_ALLOW_UNSIGNED=1 sh install.sh), else get a signed one", ErrUnsignedBundle, dir)
	}
	list, err := ParseSums(sums)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("release: %s in the bundle is not a regular file (a link or device); refusing the bundle", rel)
		case rel == "SHA256SUMS" || rel == "SHA256SUMS.sig":
			return nil
		}
		if _, ok := list[rel]; !ok {
			return fmt.Errorf("release: %s is in the bundle but not in SHA256SUMS (added after the bundle was made); refusing the bundle: get it again", rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name, want := range list {
		got, _, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("release: SHA256SUMS lists %s, which the bundle does not hold; refusing the bundle: get it again", name)
		}
		if got != want {
			return nil, fmt.Errorf("release: %s has SHA-256 %s, SHA256SUMS says %s; refusing the bundle: get it again", name, got, want)
		}
		check.Files = append(check.Files, name)
	}
	sort.Strings(check.Files)
	exe := "bin/compartment"
	if strings.HasPrefix(platform, "windows/") {
		exe += ".exe"
	}
	if _, ok := list[exe]; !ok {
		return nil, fmt.Errorf("release: SHA256SUMS has no line for %s; refusing a program the list does not vouch for", exe)
	}
	if _, ok := list["bin/compartment.sig"]; !ok {
		if check.Signer != nil || !allowUnsigned {
			return nil, fmt.Errorf("release: the bundle has no listed bin/compartment.sig; refusing an unsigned program (if you made the bundle yourself from a development build, allow it explicitly: COMPARTMENT_ALLOW_UNSIGNED=1)")
		}
		return check, nil
	}
	binSig, err := os.ReadFile(filepath.Join(dir, "bin", "compartment.sig"))
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	s, err := VerifyBinary(filepath.Join(dir, filepath.FromSlash(exe)), binSig, keys)
	if err != nil {
		return nil, fmt.Errorf("release: %s: %w; refusing the bundle (pass the release key you checked out of band if it is a key this build does not know)", exe, err)
	}
	if platform != "" && s.Target != platform {
		return nil, fmt.Errorf("release: the bundle is for %s, this is %s; make one for this system (setup airgap-bundle --os --arch)", s.Target, platform)
	}
	check.Version, check.Target = s.Version, s.Target
	return check, nil
}
