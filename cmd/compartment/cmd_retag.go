package main

import (
	"fmt"
	"strings"

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
	bar := newProgress(app.Stderr, "retagging", 0)
	rep, err := v.Retag(vault.RetagOptions{DryRun: c.DryRun, Prune: c.Prune || v.Config().Settings.RetagPrune,
		Progress: bar.report})
	bar.done()
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, rep)
	}
	for _, ch := range rep.Changes {
		var parts []string
		for _, t := range ch.Added {
			parts = append(parts, "+"+t)
		}
		for _, t := range ch.Removed {
			parts = append(parts, "-"+t)
		}
		fmt.Fprintf(app.Stdout, "%s  %s  %s\n", ch.ID[:12], strings.Join(parts, " "), ch.Text)
	}
	verb := "changed"
	if c.DryRun {
		verb = "would change"
	}
	fmt.Fprintf(app.Stdout, "%s the tags of %d of %d memories (%d added, %d removed)\n", verb, len(rep.Changes), rep.Memories, rep.Added, rep.Removed)
	if rep.Skipped > 0 {
		fmt.Fprintf(app.Stdout, "left %d alone: they changed or were forgotten during the pass (the next pass looks again)\n", rep.Skipped)
	}
	return nil
}
