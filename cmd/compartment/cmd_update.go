package main

import (
	"fmt"
	"runtime"

	"github.com/compartment/compartment/internal/release"
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

// whereToGetRelease is what update says without --from.
const whereToGetRelease = `compartment never downloads anything by itself, updates included.
To update: get a release for %s (compartment_<version>_%s.tar.gz, with SHA256SUMS
and SHA256SUMS.sig) from the project's releases page, or an airgap bundle made
with 'compartment setup airgap-bundle' on a machine that has it, bring it here,
and run:
    compartment update --from FILE
It checks the signature, refuses a binary that could not read your vault, and
replaces %s in place.
`

// updateReport is what an update did.
type updateReport = release.UpdateReport

func (c *UpdateCmd) Run(app *App) error {
	target, err := release.UpdateTarget(c.Binary)
	if err != nil {
		return err
	}
	if c.From == "" {
		plat := runtime.GOOS + "_" + runtime.GOARCH
		if c.JSON {
			return printJSON(app.Stdout, updateReport{Binary: target, Target: goosArch(),
				Note: "no --from given: compartment never downloads; bring a release archive or bundle and use --from"})
		}
		fmt.Fprintf(app.Stdout, whereToGetRelease, goosArch(), plat, target)
		return nil
	}
	rep, err := release.RunUpdate(release.UpdateRequest{From: c.From, Target: target, KeyFile: c.Key, VaultPath: app.Vault,
		Version: version, BuildFormat: vaultfmt.FormatVersion, AllowDowngrade: c.AllowDowngrade})
	if err != nil {
		return err
	}
	return printUpdate(app, c.JSON, rep)
}

func printUpdate(app *App, asJSON bool, r updateReport) error {
	if asJSON {
		return printJSON(app.Stdout, r)
	}
	if !r.Updated {
		fmt.Fprintln(app.Stdout, r.Note)
		return nil
	}
	fmt.Fprintf(app.Stdout, "updated %s: %s -> %s (%s), signed by %s\n", r.Binary, r.From, r.To, r.Target, r.Signer)
	if r.VaultFormatFrom == r.VaultFormatTo {
		fmt.Fprintf(app.Stdout, "vault format %d, unchanged\n", r.VaultFormatTo)
	} else {
		fmt.Fprintf(app.Stdout, "vault format %d -> %d: vaults are upgraded when the new version next writes them\n", r.VaultFormatFrom, r.VaultFormatTo)
	}
	if r.DaemonRestarted {
		fmt.Fprintln(app.Stdout, "embedding daemon stopped; the next search starts the new one")
	}
	if r.Note != "" {
		fmt.Fprintln(app.Stdout, r.Note)
	}
	fmt.Fprintln(app.Stdout, "processes already running (agents' MCP servers) keep the old version until they restart")
	return nil
}
