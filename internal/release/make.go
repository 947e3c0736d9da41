package release

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
	"github.com/compartment/compartment/vaultfmt"
)

// Targets are the systems a release ships to (GOOS/GOARCH).
var Targets = []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64", "windows/amd64"}

// BundleRequest is one `setup airgap-bundle`: everything a machine with no
// network needs, for one target.
type BundleRequest struct {
	Out          string
	GOOS, GOARCH string // "" = this system's
	ReleaseDir   string // release archives to take a foreign target's binary from
	// Models are directories of installed embedding models to include,
	// each checked against its manifest.
	Models []string
	// SignKeyFile is the release private key that signs SHA256SUMS; ""
	// leaves it unsigned (install.sh then needs COMPARTMENT_ALLOW_UNSIGNED).
	SignKeyFile string
	// Self and Version are this program and its version: the binary
	// bundled when the target is this system and no ReleaseDir is given.
	Self, Version string
	// Keys are the release keys a binary's signature is checked against.
	Keys []ed25519.PublicKey
}

// BundleReport is what MakeBundle wrote (the JSON of `setup airgap-bundle
// --json`): one note per choice it made, in order.
type BundleReport struct {
	Bundle     string       `json:"bundle"`
	Target     string       `json:"target"`
	Version    string       `json:"version"`
	Signed     bool         `json:"signed"`      // the program carries a signature
	SumsSigned bool         `json:"sums_signed"` // SHA256SUMS is signed
	Files      []BundleFile `json:"files"`
	Notes      []string     `json:"notes"`
}

// Size is the bundle's content in bytes (the sum of its files).
func (r BundleReport) Size() int64 {
	var n int64
	for _, f := range r.Files {
		n += f.Size
	}
	return n
}

// InstallCommand is what the user runs on the target once the bundle is
// unpacked.
func (r BundleReport) InstallCommand() string {
	if strings.HasPrefix(r.Target, "windows/") {
		return "powershell -ExecutionPolicy Bypass -File " + BundleTop + `\install.ps1`
	}
	return "sh " + BundleTop + "/install.sh"
}

// MakeBundle gathers the target's binary (and panel), the ONNX Runtime
// library where the pinned one runs, the models asked for, and writes the
// bundle (WriteBundle). Nothing is written unless every part is found and
// checked.
func MakeBundle(r BundleRequest) (BundleReport, error) {
	goos, goarch := orDefault(r.GOOS, runtime.GOOS), orDefault(r.GOARCH, runtime.GOARCH)
	target := goos + "/" + goarch
	rep := BundleReport{Bundle: r.Out, Target: target}
	if !slices.Contains(Targets, target) {
		return rep, fmt.Errorf("airgap-bundle: %s is not a release target (%s)", target, strings.Join(Targets, ", "))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(r.Out), ".airgap-")
	if err != nil {
		return rep, fmt.Errorf("airgap-bundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	src, err := FindBundleSource(target, r.ReleaseDir, tmp, r.Self, r.Version, r.Keys)
	if err != nil {
		return rep, err
	}
	rep.Version, rep.Signed = src.Version, src.Sig != nil
	note := func(s string) { rep.Notes = append(rep.Notes, s) }
	note(src.Note)
	opts := BundleOptions{GOOS: goos, GOARCH: goarch, Binary: src.Path, Signature: src.Sig,
		Models: map[string]string{}, Panel: src.Panel}
	if src.Panel != "" {
		note("the panel from " + src.PanelFrom)
	} else {
		note("no panel for " + target + " (none beside this program, or not in the release)")
	}
	if r.SignKeyFile != "" {
		if opts.SignKey, err = LoadPrivateKey(r.SignKeyFile); err != nil {
			return rep, fmt.Errorf("airgap-bundle: %w", err)
		}
		rep.SumsSigned = true
		note("SHA256SUMS signed by " + FormatKey(opts.SignKey.Public().(ed25519.PublicKey)))
	} else {
		note("SHA256SUMS is unsigned (no --release-key): install.sh refuses the bundle unless run with COMPARTMENT_ALLOW_UNSIGNED=1")
	}
	if target != "linux/amd64" {
		note("no ONNX Runtime for " + target + " (the pinned library is Linux x64 only); the bundled model works without it")
	} else if lib, err := embed.FindRuntimeLibrary(); err == nil {
		opts.RuntimeLib = lib
		note("ONNX Runtime " + embed.ORTVersion + " from " + lib)
	} else {
		note("no ONNX Runtime library found here (run make setup, or set COMPARTMENT_ORT_LIB); ONNX models will not load on the target, the bundled model will")
	}
	for _, dir := range r.Models {
		m, err := embed.ReadManifest(filepath.Join(dir, embed.ManifestFile))
		if err == nil {
			err = m.Verify(dir)
		}
		if err != nil {
			return rep, fmt.Errorf("airgap-bundle: --with-model %s: %w", dir, err)
		}
		opts.Models[m.Name] = dir
		note("model " + m.Name + " (checked against its manifest)")
	}
	rep.Files, err = WriteBundle(r.Out, opts)
	return rep, err
}

// KeysWith is the trusted release keys plus the public key in file (64
// hex digits), when file is not "": one the user checked out of band.
func KeysWith(file string) ([]ed25519.PublicKey, error) {
	keys := TrustedKeys()
	if file == "" {
		return keys, nil
	}
	k, err := LoadPublicKey(file)
	if err != nil {
		return nil, err
	}
	return append(keys, k), nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// UpdateTarget is the installed binary an update replaces, symlinks
// resolved: binary when given, else this program.
func UpdateTarget(binary string) (string, error) {
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("update: %w", err)
		}
		binary = exe
	}
	t, err := filepath.EvalSymlinks(binary)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	return t, nil
}

// UpdateRequest is one `compartment update --from`, as the user gave it.
type UpdateRequest struct {
	From, Target string // the brought release, and UpdateTarget's binary
	KeyFile      string // a release public key to trust besides the built-in ones
	VaultPath    string // the user's vault: its format must stay readable
	// Version is this program's; BuildFormat the vault format it writes.
	Version        string
	BuildFormat    int
	AllowDowngrade bool
}

// RunUpdate checks and installs the brought binary (Update.Run), with the
// installed version and the vault's on-disk format read first, and stops
// the embedding daemon after a replace: it runs the old code, and the
// next search starts the new binary's.
func RunUpdate(r UpdateRequest) (UpdateReport, error) {
	keys, err := KeysWith(r.KeyFile)
	if err != nil {
		return UpdateReport{}, err
	}
	u := Update{From: r.From, Target: r.Target, Keys: keys, Platform: runtime.GOOS + "/" + runtime.GOARCH,
		BuildFormat: r.BuildFormat, VaultPath: r.VaultPath, AllowDowngrade: r.AllowDowngrade}
	self, _ := os.Executable()
	if self != "" {
		self, _ = filepath.EvalSymlinks(self)
	}
	u.Installed = InstalledVersion(r.Target, self, r.Version, TrustedKeys())
	have, err := vaultfmt.PeekVersion(r.VaultPath)
	switch {
	case err == nil:
		u.VaultFormat = have
	case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, vaultfmt.ErrNotVault):
		return UpdateReport{}, fmt.Errorf("update: read the vault's format: %w", err)
	}
	rep, err := u.Run()
	if err != nil || !rep.Updated {
		return rep, err
	}
	if rep.DaemonRestarted, err = embed.StopDaemon(""); err != nil {
		rep.Note = "the embedding daemon did not stop: " + err.Error() + "; it exits on its own when idle"
	}
	return rep, nil
}
