package main

import (
	"crypto/ed25519"
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
	notes = append(notes, src.Note)
	opts := release.BundleOptions{GOOS: goos, GOARCH: goarch, Binary: src.Path, Signature: src.Sig,
		Models: map[string]string{}, Panel: src.Panel}
	if src.Panel != "" {
		notes = append(notes, "the panel from "+src.PanelFrom)
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
		return printJSON(app.Stdout, map[string]any{"bundle": c.Out, "target": target, "version": src.Version,
			"signed": src.Sig != nil, "sums_signed": opts.SignKey != nil, "files": files, "notes": notes})
	}
	fmt.Fprintf(app.Stdout, "wrote %s: compartment %s for %s, %d files, %s\n", c.Out, src.Version, target, len(files)+1, humanBytes(total))
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

// bundleBinary finds the binary for target with this build's trusted keys
// (release.FindBundleSource).
func bundleBinary(target, releaseDir, tmp string) (release.BundleSource, error) {
	exe, err := os.Executable()
	if err != nil {
		return release.BundleSource{}, fmt.Errorf("airgap-bundle: %w", err)
	}
	return release.FindBundleSource(target, releaseDir, tmp, exe, version, release.TrustedKeys())
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
