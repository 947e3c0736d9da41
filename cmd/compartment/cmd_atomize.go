package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// AtomizeCmd splits memories that are not one claim: --out lists them for
// an agent to split, --apply stores the pieces.
type AtomizeCmd struct {
	Out       string `help:"Write the memories that are not one claim to this JSONL file, each with an empty \"pieces\" list to fill in." placeholder:"FILE" xor:"mode"`
	Plaintext bool   `help:"With --out: acknowledge that the file holds memories unencrypted."`
	Apply     string `help:"Store the pieces of a filled-in plan; the originals are superseded (still readable by id). All or nothing." placeholder:"PLAN" xor:"mode"`
	JSON      bool   `help:"Print the result as JSON." name:"json"`
}

func (c *AtomizeCmd) Run(app *App) error {
	switch {
	case c.Out != "" && !c.Plaintext:
		return errors.New("the plan holds memories unencrypted: add --plaintext to write it anyway, and delete it when done")
	case c.Out == "" && c.Apply == "":
		return errors.New("choose --out FILE --plaintext (list what to split) or --apply PLAN (store the pieces)")
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	if c.Apply != "" {
		return c.apply(app, v)
	}
	items, err := v.AtomizeCandidates()
	if err != nil {
		return err
	}
	if err := vault.WriteAtomizePlan(c.Out, items); err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.AtomizePlan{Memories: len(items), Path: c.Out})
	}
	fmt.Fprintf(app.Stdout, "wrote %d memories that are not one claim to %s\n", len(items), c.Out)
	if len(items) > 0 {
		fmt.Fprintf(app.Stdout, "fill in each line's \"pieces\" (one claim each), then run: compartment atomize --apply %s\n", c.Out)
	}
	return nil
}

func (c *AtomizeCmd) apply(app *App, v *vault.Vault) error {
	f, err := os.Open(c.Apply)
	if err != nil {
		return fmt.Errorf("atomize: %w", err)
	}
	defer f.Close()
	bar := render.NewProgress(app.Stderr, "embedding pieces", 0)
	res, err := v.ApplyAtomize(f, bar.Report)
	bar.Done()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, res)
	}
	fmt.Fprintf(app.Stdout, "split %d memories into %d pieces; the originals are superseded and still readable by id\n", res.Split, res.Stored)
	return nil
}
