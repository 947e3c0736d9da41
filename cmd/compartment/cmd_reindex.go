package main

import (
	"errors"
	"fmt"

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
	opts := vault.ReindexOptions{All: c.ReEmbed || c.Model != ""}
	if c.Int8 || c.F32 {
		int8 := c.Int8
		opts.Int8 = &int8
		opts.All = true
	}
	bar := newProgress(app.Stderr, "embedding", 0)
	opts.Progress = func(done, total int) { bar.total = total; bar.set(done) }
	n, err := v.Reindex(opts)
	bar.done()
	if err != nil {
		return err
	}
	if err := c.saveSettings(app, v, opts); err != nil {
		return errors.Join(err, errors.New("the vectors were re-embedded; set the model setting by hand"))
	}
	info := enc.Info()
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"embedded": n, "model": info.Name, "sha256": fmt.Sprintf("%x", info.SHA256)})
	}
	fmt.Fprintf(app.Stdout, "embedded %d records with %s\n", n, info.Name)
	return nil
}

// saveSettings records the model and storage the vault now uses.
func (c *ReindexCmd) saveSettings(app *App, v *vault.Vault, opts vault.ReindexOptions) error {
	if c.Model == "" && opts.Int8 == nil {
		return nil
	}
	cfg := v.Config()
	if c.Model != "" {
		cfg.Settings.Model = c.Model
	}
	if opts.Int8 != nil {
		cfg.Settings.Int8Vectors = *opts.Int8
	}
	return cfg.Save(app.Vault)
}
