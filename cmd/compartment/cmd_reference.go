package main

import (
	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// ReferenceCmd manages the reference facts a vault is seeded with.
type ReferenceCmd struct {
	Update ReferenceUpdateCmd `cmd:"" help:"Replace the vault's reference facts with the ones this binary ships (nothing else changes)."`
}

// ReferenceUpdateCmd loads (or upgrades) the reference facts.
type ReferenceUpdateCmd struct {
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *ReferenceUpdateCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	return loadReference(app, v, c.JSON, false)
}

// loadReference puts the bundled reference facts into v, replacing older
// ones, and reports what changed: as JSON, in one line, or not at all
// (quiet: init --json prints its own result).
func loadReference(app *App, v *vault.Vault, asJSON, quiet bool) error {
	start := time.Now()
	res, digest, err := v.LoadBundledReference()
	if err != nil || quiet {
		return err
	}
	r := api.Reference{Reference: res, Seconds: time.Since(start).Seconds(), Version: digest}
	if asJSON {
		return render.JSON(app.Stdout, r)
	}
	render.Reference(app.Stdout, r)
	return nil
}
