package main

import (
	"fmt"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
)

// encoder returns the embedding model for vault commands: the model named
// in the vault's settings, else the user's default, else the bundled static
// model. embed.Open keeps the static model in-process (it loads in
// milliseconds) and shares larger ones through the embedding daemon.
func (app *App) encoder() (embed.Encoder, error) {
	name := ""
	if cfg, err := vault.LoadConfig(app.Vault); err == nil {
		name = cfg.Settings.Model
	}
	return openEncoder(name)
}

func openEncoder(name string) (embed.Encoder, error) {
	enc, err := embed.Open(embed.LoadOptions{Name: name})
	if err != nil {
		return nil, fmt.Errorf("load embedding model: %w", err)
	}
	return enc, nil
}
