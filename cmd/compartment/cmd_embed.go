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

// embedOutput is the --json shape. Vectors lists every window's vector
// when a long text has more than one; Vector is the first (or the query's).
type embedOutput struct {
	Dim     int         `json:"dim"`
	Model   string      `json:"model"`
	SHA256  string      `json:"sha256"`
	Tokens  int         `json:"tokens"`
	Windows [][2]int    `json:"windows"`
	Vector  []float32   `json:"vector"`
	Vectors [][]float32 `json:"vectors,omitempty"`
	Daemon  int         `json:"daemon_pid,omitempty"`
}

func (c *EmbedCmd) Run(app *App) error {
	enc, err := embed.Open(embed.LoadOptions{Name: c.Model})
	if err != nil {
		return err
	}
	defer enc.Close()
	info := enc.Info()
	out := embedOutput{Dim: info.Dim, Model: info.Name, SHA256: embed.FormatPin(info.SHA256), Daemon: embed.DaemonPID(enc)}
	if c.Query {
		err = c.embedQuery(enc, &out)
	} else {
		err = c.embedDocument(enc, &out)
	}
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, out)
	}
	printEmbedding(app, out, c.Query)
	return nil
}

// embedQuery reports the query's tokens as the model reads them: prefix
// included, cut at the model's limit.
func (c *EmbedCmd) embedQuery(enc embed.Encoder, out *embedOutput) error {
	v, err := enc.EmbedQuery(c.Text)
	if err != nil {
		return err
	}
	docs, err := enc.EmbedDocuments([]string{enc.Info().QueryPrefix + c.Text})
	if err != nil {
		return err
	}
	out.Tokens = docs[0].Tokens
	if limit := enc.Info().MaxTokens - 2; limit > 0 && out.Tokens > limit {
		out.Tokens = limit
	}
	out.Windows = [][2]int{{0, out.Tokens}}
	out.Vector = v
	return nil
}

func (c *EmbedCmd) embedDocument(enc embed.Encoder, out *embedOutput) error {
	docs, err := enc.EmbedDocuments([]string{c.Text})
	if err != nil {
		return err
	}
	d := docs[0]
	out.Tokens, out.Windows, out.Vector = d.Tokens, d.Windows, d.Vectors[0]
	if len(d.Vectors) > 1 {
		out.Vectors = d.Vectors
	}
	return nil
}

func printEmbedding(app *App, out embedOutput, query bool) {
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
