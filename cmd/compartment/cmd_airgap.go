package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/release"
)

// SetupAirgapBundleCmd writes everything a machine with no network needs
// into one .tar.gz.
type SetupAirgapBundleCmd struct {
	Out        string   `arg:"" help:"The bundle to write (OUT.tar.gz)." type:"path"`
	OS         string   `name:"os" help:"Target system: linux, darwin or windows (default: this one)." placeholder:"OS"`
	Arch       string   `help:"Target architecture: amd64 or arm64 (default: this one)." placeholder:"ARCH"`
	Release    string   `help:"A release directory (the output of make release: archives, SHA256SUMS, SHA256SUMS.sig) to take the target's binary from; needed for another system than this one." type:"path" placeholder:"DIR"`
	WithModel  []string `help:"Also bundle the embedding model installed in DIR (repeatable), e.g. ~/.compartment/models/bge-small-en-v1.5-int8." type:"path" placeholder:"DIR"`
	ReleaseKey string   `name:"release-key" help:"Sign the bundle's SHA256SUMS with this release private key (default $COMPARTMENT_RELEASE_KEY), so install.sh can check every file; without one the bundle installs only when allowed explicitly." type:"path" placeholder:"FILE"`
	JSON       bool     `help:"Print JSON: the bundle, its files and notes." name:"json"`
}

// releaseTargets are the systems a release ships to.
var releaseTargets = []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64", "windows/amd64"}

func (c *SetupAirgapBundleCmd) Run(app *App) error {
	goos, goarch := orDefault(c.OS, runtime.GOOS), orDefault(c.Arch, runtime.GOARCH)
	target := goos + "/" + goarch
	if !slices.Contains(releaseTargets, target) {
		return fmt.Errorf("airgap-bundle: %s is not a release target (%s)", target, strings.Join(releaseTargets, ", "))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(c.Out), ".airgap-")
	if err != nil {
		return fmt.Errorf("airgap-bundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	var notes []string
	src, err := bundleBinary(target, c.Release, tmp)
	if err != nil {
		return err
	}
	notes = append(notes, src.note)
	opts := release.BundleOptions{GOOS: goos, GOARCH: goarch, Binary: src.path, Signature: src.sig,
		Models: map[string]string{}, Panel: src.panel}
	if src.panel != "" {
		notes = append(notes, "the panel from "+src.panelFrom)
	} else {
		notes = append(notes, "no panel for "+target+" (none beside this program, or not in the release)")
	}
	keyFile := orDefault(c.ReleaseKey, os.Getenv("COMPARTMENT_RELEASE_KEY"))
	if keyFile != "" {
		if opts.SignKey, err = release.LoadPrivateKey(keyFile); err != nil {
			return fmt.Errorf("airgap-bundle: %w", err)
		}
		notes = append(notes, "SHA256SUMS signed by "+release.FormatKey(opts.SignKey.Public().(ed25519.PublicKey)))
	} else {
		notes = append(notes, "SHA256SUMS is unsigned (no --release-key): install.sh refuses the bundle unless run with COMPARTMENT_ALLOW_UNSIGNED=1")
	}
	if target == "linux/amd64" {
		if lib, err := embed.FindRuntimeLibrary(); err == nil {
			opts.RuntimeLib = lib
			notes = append(notes, "ONNX Runtime "+embed.ORTVersion+" from "+lib)
		} else {
			notes = append(notes, "no ONNX Runtime library found here (run make setup, or set COMPARTMENT_ORT_LIB); ONNX models will not load on the target, the bundled model will")
		}
	} else {
		notes = append(notes, "no ONNX Runtime for "+target+" (the pinned library is Linux x64 only); the bundled model works without it")
	}
	for _, dir := range c.WithModel {
		m, err := embed.ReadManifest(filepath.Join(dir, embed.ManifestFile))
		if err != nil {
			return fmt.Errorf("airgap-bundle: --with-model %s: %w", dir, err)
		}
		if err := m.Verify(dir); err != nil {
			return fmt.Errorf("airgap-bundle: --with-model %s: %w", dir, err)
		}
		opts.Models[m.Name] = dir
		notes = append(notes, "model "+m.Name+" (checked against its manifest)")
	}
	files, err := release.WriteBundle(c.Out, opts)
	if err != nil {
		return err
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"bundle": c.Out, "target": target, "version": src.version,
			"signed": src.sig != nil, "sums_signed": opts.SignKey != nil, "files": files, "notes": notes})
	}
	fmt.Fprintf(app.Stdout, "wrote %s: compartment %s for %s, %d files, %s\n", c.Out, src.version, target, len(files)+1, humanBytes(total))
	for _, n := range notes {
		fmt.Fprintf(app.Stdout, "  %s\n", n)
	}
	install := "sh " + release.BundleTop + "/install.sh"
	if goos == "windows" {
		install = "powershell -ExecutionPolicy Bypass -File " + release.BundleTop + `\install.ps1`
	}
	fmt.Fprintf(app.Stdout, "on the target: tar -xzf %s && %s\n", filepath.Base(c.Out), install)
	return nil
}

// bundledBinary is the program chosen for a bundle, and the panel.
type bundledBinary struct {
	path, version, note string
	sig                 []byte
	panel, panelFrom    string // "" when the target has none here
}

// bundleBinary finds the binary for target: from a release directory
// (every signature checked), or this very program when target is this
// system.
func bundleBinary(target, releaseDir, tmp string) (bundledBinary, error) {
	if releaseDir != "" {
		archive, err := verifiedArchive(releaseDir, target)
		if err != nil {
			return bundledBinary{}, err
		}
		bin, sig, err := release.ExtractBinary(archive, tmp)
		if err != nil {
			return bundledBinary{}, err
		}
		s, err := release.VerifyBinary(bin, sig, release.TrustedKeys())
		if err != nil {
			return bundledBinary{}, fmt.Errorf("airgap-bundle: %s: %w", archive, err)
		}
		if s.Target != target {
			return bundledBinary{}, fmt.Errorf("airgap-bundle: %s holds a binary for %s, not %s", archive, s.Target, target)
		}
		panel, err := release.ExtractPanel(archive, tmp)
		if err != nil {
			return bundledBinary{}, err
		}
		return bundledBinary{path: bin, sig: sig, version: s.Version, panel: panel, panelFrom: filepath.Base(archive),
			note: "binary from " + filepath.Base(archive) + ", signed by " + release.FormatKey(s.Key)}, nil
	}
	if here := runtime.GOOS + "/" + runtime.GOARCH; target != here {
		return bundledBinary{}, fmt.Errorf("airgap-bundle: this program is for %s; for %s give --release DIR with the release archives (make release)", here, target)
	}
	exe, err := os.Executable()
	if err != nil {
		return bundledBinary{}, fmt.Errorf("airgap-bundle: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return bundledBinary{}, fmt.Errorf("airgap-bundle: %w", err)
	}
	b := bundledBinary{path: exe, version: version}
	panel := filepath.Join(filepath.Dir(exe), "compartment-panel")
	if runtime.GOOS == "windows" {
		panel += ".exe"
	}
	if fi, err := os.Stat(panel); err == nil && fi.Mode().IsRegular() {
		b.panel, b.panelFrom = panel, panel
	}
	sig, sigPath := release.SignatureBeside(exe)
	if sig == nil {
		b.note = "this program (" + exe + ") is unsigned, a development build: the bundle installs, but `compartment update` will not accept it"
		return b, nil
	}
	s, err := release.VerifyBinary(exe, sig, release.TrustedKeys())
	switch {
	case errors.Is(err, release.ErrUntrusted):
		b.note = "this program's signature (" + sigPath + ") is by a key this build does not trust: " + err.Error()
	case err != nil:
		return bundledBinary{}, fmt.Errorf("airgap-bundle: %s does not match %s: %w", sigPath, exe, err)
	default:
		b.note = "this program, signed by " + release.FormatKey(s.Key)
	}
	b.sig = sig
	return b, nil
}

// verifiedArchive finds target's archive in a release directory and checks
// it against SHA256SUMS, whose signature must be by a trusted key.
func verifiedArchive(dir, target string) (string, error) {
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	sig, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS.sig"))
	if err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	if _, err := release.VerifySums(sums, sig, release.TrustedKeys()); err != nil {
		return "", fmt.Errorf("release %s: %w", dir, err)
	}
	list, err := release.ParseSums(sums)
	if err != nil {
		return "", err
	}
	suffix := "_" + strings.ReplaceAll(target, "/", "_") + ".tar.gz"
	for name, want := range list {
		if !strings.HasPrefix(name, "compartment_") || !strings.HasSuffix(name, suffix) {
			continue
		}
		path := filepath.Join(dir, name)
		got, _, err := release.FileSHA256(path)
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

// SetupVerifyBundleCmd checks an unpacked airgap bundle: what install.sh
// runs before it copies anything.
type SetupVerifyBundleCmd struct {
	Dir           string `arg:"" help:"The unpacked bundle (its compartment-bundle directory)." type:"existingdir"`
	Key           string `help:"Also trust the release public key in this file (64 hex digits)." type:"path" placeholder:"FILE"`
	AllowUnsigned bool   `help:"Accept a bundle made without the release key (only for one you made yourself)."`
}

func (c *SetupVerifyBundleCmd) Run(app *App) error {
	keys := release.TrustedKeys()
	if c.Key != "" {
		k, err := release.LoadPublicKey(c.Key)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	chk, err := release.VerifyBundle(c.Dir, keys, goosArch(), c.AllowUnsigned)
	if err != nil {
		return err
	}
	signer := "UNSIGNED (allowed by --allow-unsigned)"
	if chk.Signer != nil {
		signer = "signed by release key " + release.FormatKey(chk.Signer)
	}
	program := "an unsigned program"
	if chk.Version != "" {
		program = "compartment " + chk.Version + " for " + chk.Target
	}
	fmt.Fprintf(app.Stdout, "bundle checked: %s, %d files all listed and matching SHA256SUMS, %s\n", program, len(chk.Files), signer)
	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// goosArch is this program's GOOS/GOARCH.
func goosArch() string { return runtime.GOOS + "/" + runtime.GOARCH }
