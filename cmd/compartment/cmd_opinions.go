package main

import (
	"fmt"

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
	bar := newProgress(app.Stderr, "comparing opinions", 0)
	rep, err := v.OpinionsAudit(vault.OpinionsAuditOptions{Threshold: c.Threshold, NoBackfill: c.NoBackfill,
		KeepNewest: c.KeepNewest || c.DryRun, DryRun: c.DryRun, Progress: bar.report})
	bar.done()
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, rep)
	}
	w := app.Stdout
	fmt.Fprintf(w, "%d live opinions, %d of them facts that read as preferences\n", rep.Opinions, len(rep.Backfilled))
	for _, b := range rep.Backfilled {
		fmt.Fprintf(w, "  opinion? %s  %s (%s)\n", b.ID[:12], b.Text, b.Reason)
	}
	fmt.Fprintf(w, "%d clusters of opinions of one holder on one aspect\n", len(rep.Clusters))
	for i, cl := range rep.Clusters {
		fmt.Fprintf(w, "cluster %d:\n", i+1)
		for j, r := range cl.Opinions {
			mark := "keep    "
			switch {
			case j > 0 && rep.DryRun:
				mark = "would supersede"
			case j > 0:
				mark = "older   "
			}
			fmt.Fprintf(w, "  %s %s  %s [%s]\n", mark, r.ID[:12], r.Text, r.Namespace)
		}
	}
	switch {
	case rep.DryRun:
		n := 0
		for _, cl := range rep.Clusters {
			n += len(cl.Superseded)
		}
		fmt.Fprintf(w, "dry run: --keep-newest would supersede the %d opinions marked above and mark the %d facts above kind=opinion; nothing else, and nothing was changed\n", n, len(rep.Backfilled))
	case rep.Written:
		fmt.Fprintln(w, "kept the newest opinion of each cluster; the others are superseded and still readable by id")
	case len(rep.Clusters) > 0 || len(rep.Backfilled) > 0:
		fmt.Fprintln(w, "nothing was changed: merge by hand (store a merged opinion with --supersedes), or rerun with --keep-newest")
	}
	return nil
}
