package main

import (
	"runtime"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/vaultfmt"
)

// UpdateCmd replaces the installed binary with a signed one the user has
// brought to the machine. It never reaches the network.
type UpdateCmd struct {
	From           string `help:"A release archive (compartment_<version>_<os>_<arch>.tar.gz), an airgap bundle, or a binary with its compartment.sig beside it." type:"path" placeholder:"BUNDLE|BINARY"`
	Binary         string `help:"The installed binary to replace (default: this program)." type:"path" placeholder:"PATH"`
	Key            string `help:"Also trust the release public key in this file (64 hex digits) for this update: one you checked out of band, or the dist/VERSION/release.pub of your own make release." type:"path" placeholder:"FILE"`
	AllowDowngrade bool   `help:"Install the binary even when its version is older than the installed one (or cannot be ordered)."`
	JSON           bool   `help:"Print JSON: updated, from and to versions, vault formats, signer, daemon restarted." name:"json"`
}

func (c *UpdateCmd) Run(app *App) error {
	target, err := release.UpdateTarget(c.Binary)
	if err != nil {
		return err
	}
	if c.From == "" {
		if c.JSON {
			return render.JSON(app.Stdout, release.UpdateReport{Binary: target, Target: goosArch(),
				Note: "no --from given: compartment never downloads; bring a release archive or bundle and use --from"})
		}
		render.WhereToGetRelease(app.Stdout, runtime.GOOS, runtime.GOARCH, target)
		return nil
	}
	rep, err := release.RunUpdate(release.UpdateRequest{From: c.From, Target: target, KeyFile: c.Key, VaultPath: app.Vault,
		Version: version, BuildFormat: vaultfmt.FormatVersion, AllowDowngrade: c.AllowDowngrade})
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	render.Update(app.Stdout, rep)
	return nil
}
