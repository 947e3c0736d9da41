package main

import (
	"errors"
	"fmt"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/render"
)

// SetupDownloadLongMemEvalCmd installs the pinned LongMemEval file that
// `bench --longmemeval s` runs on.
type SetupDownloadLongMemEvalCmd struct {
	Variant string `arg:"" optional:"" default:"s" help:"Which variant (default s, LongMemEval_S cleaned)."`
	From    string `help:"Install from the file in this directory (longmemeval_s_cleaned.json); nothing is downloaded." type:"path" placeholder:"DIR"`
	Dir     string `help:"Install into this directory (default ~/.compartment/benchmarks/longmemeval)." type:"path" placeholder:"DIR"`
	JSON    bool   `help:"Print JSON: variant, path, sha256." name:"json"`
}

func (c *SetupDownloadLongMemEvalCmd) Run(app *App) error {
	if c.From == "" && app.AssertOffline {
		return errors.New("setup: downloading LongMemEval needs the network, which --assert-offline forbids; use --from DIR")
	}
	opts := embed.InstallOptions{From: c.From}
	if !c.JSON {
		opts.Progress = app.Stderr
	}
	path, err := bench.DownloadLongMemEval(c.Variant, c.Dir, opts)
	if err != nil {
		return err
	}
	sum := bench.LMEDownloads[c.Variant].SHA256
	if c.JSON {
		return render.JSON(app.Stdout, map[string]any{"variant": c.Variant, "path": path, "sha256": sum})
	}
	fmt.Fprintf(app.Stdout, "LongMemEval %s installed in %s (sha256 %s)\nrun it with: compartment bench --longmemeval %s\n",
		c.Variant, path, sum, c.Variant)
	return nil
}
