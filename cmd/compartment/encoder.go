package main

import (
	"fmt"
	"os"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
)

// encoder returns the embedding model for vault commands: the model named
// in the vault's settings, else the user's default, else the bundled static
// model. The static model loads in-process (a few milliseconds); larger
// models go through the shared embedding daemon so they load once per user.
func (app *App) encoder() (embed.Encoder, error) {
	name := ""
	if cfg, err := vault.LoadConfig(app.Vault); err == nil {
		name = cfg.Settings.Model
	}
	return openEncoder(name)
}

func openEncoder(name string) (embed.Encoder, error) {
	opts := embed.LoadOptions{Name: name}
	if isPath(name) {
		opts = embed.LoadOptions{Path: name}
	}
	resolved := name
	if resolved == "" {
		if def, err := embed.DefaultModel(embed.DefaultModelsDir()); err == nil {
			resolved = def
		}
	}
	var enc embed.Encoder
	var err error
	if resolved == "" || resolved == embed.StaticModel || resolved == embed.StaticModelName {
		enc, err = embed.Load(opts)
	} else {
		enc, err = embed.Open(opts)
	}
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	return enc, nil
}

func isPath(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c == os.PathSeparator {
			return true
		}
	}
	return false
}
