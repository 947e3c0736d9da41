package main

import (
	"fmt"
	"strings"

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
		return printJSON(app.Stdout, out)
	}
	printEmbedding(app, out, c.Query)
	return nil
}

func printEmbedding(app *App, out embed.Inspection, query bool) {
	w := app.Stdout
	fmt.Fprintf(w, "model    %s\n", out.Model)
	fmt.Fprintf(w, "sha256   %s\n", out.SHA256)
	fmt.Fprintf(w, "dim      %d\n", out.Dim)
	kind := "document"
	if query {
		kind = "query (prefix included)"
	}
	fmt.Fprintf(w, "tokens   %d, as a %s\n", out.Tokens, kind)
	var spans []string
	for _, win := range out.Windows {
		spans = append(spans, fmt.Sprintf("[%d,%d)", win[0], win[1]))
	}
	fmt.Fprintf(w, "windows  %d: %s\n", len(out.Windows), strings.Join(spans, " "))
	if out.Daemon != 0 {
		fmt.Fprintf(w, "served   by the embedding daemon, pid %d\n", out.Daemon)
	} else {
		fmt.Fprintf(w, "served   in this process\n")
	}
	fmt.Fprintf(w, "vector")
	for i, x := range out.Vector {
		if i%8 == 0 {
			fmt.Fprintf(w, "\n ")
		}
		fmt.Fprintf(w, " %+.6f", x)
	}
	fmt.Fprintln(w)
}
