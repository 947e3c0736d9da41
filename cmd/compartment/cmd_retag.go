package main

import (
	"github.com/compartment/compartment/internal/render"

	"github.com/compartment/compartment/internal/vault"
)

// RetagCmd runs one retag pass.
type RetagCmd struct {
	DryRun bool `help:"Print what would change and write nothing."`
	Prune  bool `help:"Also remove inferred tags no neighbour was given any more (tags you gave are never removed)."`
	JSON   bool `help:"Print the report as JSON." name:"json"`
}

func (c *RetagCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	bar := render.NewProgress(app.Stderr, "retagging", 0)
	rep, err := v.Retag(vault.RetagOptions{DryRun: c.DryRun, Prune: c.Prune || v.Config().Settings.RetagPrune,
		Progress: bar.Report})
	bar.Done()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	render.Retag(app.Stdout, rep, c.DryRun)
	return nil
}
