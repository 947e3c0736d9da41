package main

import (
	"github.com/compartment/compartment/internal/render"

	"github.com/compartment/compartment/embed"
)

// EmbedCmd embeds one text and prints the vector: for people checking
// that their model works, and for tests.
type EmbedCmd struct {
	Text  string `arg:"" help:"The text to embed."`
	Query bool   `help:"Embed it as a search query (with the model's query prefix)."`
	Model string `help:"Model name or path (default: the default model)." placeholder:"NAME|PATH"`
	JSON  bool   `help:"Print JSON: dim, model, sha256, tokens, windows, vector." name:"json"`
}

func (c *EmbedCmd) Run(app *App) error {
	enc, err := embed.Open(embed.LoadOptions{Name: c.Model})
	if err != nil {
		return err
	}
	defer enc.Close()
	out, err := embed.Inspect(enc, c.Text, c.Query)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, out)
	}
	render.Embedding(app.Stdout, out, c.Query)
	return nil
}
