package main

import "github.com/compartment/compartment/embed"

// encoder returns the embedding model for vault commands.
//
// Placeholder: no semantic channel until the embedding path lands.
func (app *App) encoder() (embed.Encoder, error) { return nil, nil }
