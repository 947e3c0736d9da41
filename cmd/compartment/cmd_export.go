package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// ExportCmd writes the vault as plaintext JSONL.
type ExportCmd struct {
	Plaintext string `help:"Write every memory and relation, unencrypted, to this file (- for stdout)." required:"" placeholder:"OUT"`
	JSON      bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ExportCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	if c.Plaintext == "-" {
		_, err := v.Export(app.Stdout)
		return err
	}
	n, err := vault.ExportFile(v, c.Plaintext)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.Export{Path: c.Plaintext, Lines: n})
	}
	fmt.Fprintf(app.Stderr, "wrote %d lines to %s (plaintext: keep it safe, delete it when done)\n", n, c.Plaintext)
	return nil
}

// ImportCmd reads JSONL into the vault.
type ImportCmd struct {
	File   string `arg:"" help:"JSONL file: an export, or lines with at least \"text\" (- for stdin)."`
	Source string `help:"Source for lines that have none (default: \"imported from FILE\")."`
	JSON   bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ImportCmd) Run(app *App) error {
	in, err := vault.OpenImport(c.File, app.Stdin, c.Source)
	if err != nil {
		return err
	}
	defer in.Close()
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	bar := render.NewProgress(app.Stderr, "importing", in.Lines)
	start := time.Now()
	res, err := v.Import(in.R, in.Source, bar.Set)
	bar.Done()
	if err != nil {
		return errors.Join(err, fmt.Errorf("%d memories were stored before the error", res.Stored))
	}
	rep := api.Import{ImportResult: res, Seconds: time.Since(start).Seconds(), PeakRSSMB: bench.PeakRSSMB()}
	rep.LinesPerS = float64(res.Lines) / max(rep.Seconds, 1e-3)
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	render.Import(app.Stdout, rep)
	return nil
}
