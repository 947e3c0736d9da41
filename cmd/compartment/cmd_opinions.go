package main

import (
	"fmt"

	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// OpinionsCmd groups the opinion upkeep commands.
type OpinionsCmd struct {
	Audit OpinionsAuditCmd `cmd:"" help:"Find overlapping live opinions (and preferences stored as facts); --keep-newest resolves them."`
}

// OpinionsAuditCmd finds overlapping live opinions with the store's own
// conflict rule.
type OpinionsAuditCmd struct {
	Threshold  float64 `help:"Similarity at which two opinions overlap, for this audit (default: opinion_update_threshold)."`
	NoBackfill bool    `help:"Do not treat facts that read as preferences as opinions."`
	KeepNewest bool    `help:"Write: mark the backfilled records kind=opinion and supersede all but the newest opinion of each cluster."`
	DryRun     bool    `help:"With --keep-newest: list exactly what it would change, and change nothing." name:"dry-run"`
	JSON       bool    `help:"Print the report as JSON (backfilled records with their reason, clusters newest first)." name:"json"`
}

func (c *OpinionsAuditCmd) Run(app *App) error {
	if c.Threshold < 0 || c.Threshold > 1 {
		return fmt.Errorf("--threshold %v: use a similarity between 0 and 1 (or leave it out for opinion_update_threshold)", c.Threshold)
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	bar := render.NewProgress(app.Stderr, "comparing opinions", 0)
	rep, err := v.OpinionsAudit(vault.OpinionsAuditOptions{Threshold: c.Threshold, NoBackfill: c.NoBackfill,
		KeepNewest: c.KeepNewest || c.DryRun, DryRun: c.DryRun, Progress: bar.Report})
	bar.Done()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	render.OpinionsAudit(app.Stdout, rep)
	return nil
}
