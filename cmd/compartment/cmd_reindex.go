package main

import (
	"fmt"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// ReindexCmd embeds records with the current (or a new) model.
type ReindexCmd struct {
	ReEmbed bool   `help:"Re-embed every record, not only those without vectors from the model."`
	Model   string `help:"Switch the vault to this model (installed name, \"static\", or a path) and re-embed." placeholder:"NAME|PATH"`
	Int8    bool   `help:"Store vectors int8-quantised (the default)." xor:"storage"`
	F32     bool   `help:"Store vectors as float32." xor:"storage"`
	JSON    bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ReindexCmd) Run(app *App) error {
	// The model setting is saved only after the reindex succeeds, so a
	// failed switch leaves the vault on its old model.
	name := c.Model
	if name == "" {
		if cfg, err := vault.LoadConfig(app.Vault); err == nil {
			name = cfg.Settings.Model
		}
	}
	enc, err := openEncoder(name)
	if err != nil {
		return err
	}
	u, err := app.credential()
	if err != nil {
		return err
	}
	v, err := vault.Open(app.Vault, app.vaultOptions(vault.Options{Unlock: u, Caller: app.Caller, Encoder: enc, Repin: true}))
	if err != nil {
		return err
	}
	defer v.Close()
	opts := vault.ReindexOptions{All: c.ReEmbed || c.Model != "", Model: c.Model}
	if c.Int8 || c.F32 {
		int8 := c.Int8
		opts.Int8 = &int8
		opts.All = true
	}
	bar := render.NewProgress(app.Stderr, "embedding", 0)
	opts.Progress = bar.Report
	n, err := v.Reindex(opts)
	bar.Done()
	if err != nil {
		return err
	}
	info := enc.Info()
	if c.JSON {
		return render.JSON(app.Stdout, api.Reindexed{Embedded: n, Model: info.Name, SHA256: fmt.Sprintf("%x", info.SHA256)})
	}
	fmt.Fprintf(app.Stdout, "embedded %d records with %s\n", n, info.Name)
	return nil
}
