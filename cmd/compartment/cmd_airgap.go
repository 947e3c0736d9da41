package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/internal/render"
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

func (c *SetupAirgapBundleCmd) Run(app *App) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("airgap-bundle: %w", err)
	}
	rep, err := release.MakeBundle(release.BundleRequest{Out: c.Out, GOOS: c.OS, GOARCH: c.Arch, ReleaseDir: c.Release,
		Models: c.WithModel, SignKeyFile: orDefault(c.ReleaseKey, os.Getenv("COMPARTMENT_RELEASE_KEY")),
		Self: exe, Version: version, Keys: release.TrustedKeys()})
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	render.Bundle(app.Stdout, c.Out, rep)
	return nil
}

// SetupVerifyBundleCmd checks an unpacked airgap bundle: what install.sh
// runs before it copies anything.
type SetupVerifyBundleCmd struct {
	Dir           string `arg:"" help:"The unpacked bundle (its compartment-bundle directory)." type:"existingdir"`
	Key           string `help:"Also trust the release public key in this file (64 hex digits)." type:"path" placeholder:"FILE"`
	AllowUnsigned bool   `help:"Accept a bundle made without the release key (only for one you made yourself)."`
}

func (c *SetupVerifyBundleCmd) Run(app *App) error {
	keys, err := release.KeysWith(c.Key)
	if err != nil {
		return err
	}
	chk, err := release.VerifyBundle(c.Dir, keys, goosArch(), c.AllowUnsigned)
	if err != nil {
		return err
	}
	render.BundleChecked(app.Stdout, chk)
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
