package main

import (
	"fmt"
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
	switch {
	case err != nil || quiet:
		return err
	case asJSON:
		return printJSON(app.Stdout, map[string]any{"reference": res, "version": digest, "seconds": time.Since(start).Seconds()})
	}
	fmt.Fprintf(app.Stdout, "Reference facts: %d added, %d removed, %d unchanged (pack %s, %.1fs)\n",
		res.Added, res.Removed, res.Kept, digest[:12], time.Since(start).Seconds())
	return nil
}
