package main

import (
	"fmt"
	"io"
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
	return loadReference(app, v, c.JSON)
}

// seedReference loads the reference facts into a new vault, saying so in
// one line unless quiet (init --json prints its own result).
func seedReference(app *App, v *vault.Vault, quiet bool) error {
	out := app.Stdout
	if quiet {
		app.Stdout = io.Discard
		defer func() { app.Stdout = out }()
	}
	return loadReference(app, v, false)
}

// loadReference puts the bundled reference facts into v, replacing older
// ones, and reports what changed.
func loadReference(app *App, v *vault.Vault, asJSON bool) error {
	start := time.Now()
	res, digest, err := v.LoadBundledReference()
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(app.Stdout, map[string]any{"reference": res, "version": digest, "seconds": time.Since(start).Seconds()})
	}
	fmt.Fprintf(app.Stdout, "Reference facts: %d added, %d removed, %d unchanged (pack %s, %.1fs)\n",
		res.Added, res.Removed, res.Kept, digest[:12], time.Since(start).Seconds())
	return nil
}
