package main

import (
	"errors"
	"strconv"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// SearchCmd recalls memories.
type SearchCmd struct {
	Query           string   `arg:"" help:"What to recall, in words."`
	TopK            int      `help:"Return exactly this many (default: whatever is relevant)." placeholder:"N"`
	Namespace       string   `help:"Only this namespace."`
	Tag             []string `help:"Only memories with this tag (repeatable: all must match)." placeholder:"TAG"`
	Since           string   `help:"Stored on or after this date (YYYY-MM-DD)."`
	Until           string   `help:"Stored on or before this date (YYYY-MM-DD)."`
	DiscoveredSince string   `help:"Learned on or after this date (YYYY-MM-DD)."`
	DiscoveredUntil string   `help:"Learned on or before this date (YYYY-MM-DD)."`
	All             bool     `help:"Include the reference facts whatever the setting says."`
	Reference       bool     `help:"Search the reference facts alone." name:"reference-only"`
	AsOf            string   `help:"Read the memory as it was on this day (YYYY-MM-DD): memories valid then, replaced ones included, first. Default: a past time the query names (\"in March 2025\")." name:"as-of" placeholder:"DAY"`
	History         bool     `help:"Keep the older opinions a newer one replaces (marked, below it); by default only the current opinion of a holder on an aspect comes back."`
	JSON            bool     `help:"Print the results as JSON." name:"json"`
	Explain         bool     `help:"Show why each result came back: cosine, matched terms, ranks, priors, confidence, the day read as of."`
}

func (c *SearchCmd) Run(app *App) error {
	if c.TopK < 0 {
		// "--top-k=-1" gets past the flag parser, which refuses only
		// "--top-k -1": the same sentence for both, not search's own.
		return errors.New(negativeFlagSentence("top-k", strconv.Itoa(c.TopK)))
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	req := vault.SearchRequest{
		Query: c.Query, TopK: c.TopK, Namespace: c.Namespace, Tags: c.Tag, Since: c.Since, Until: c.Until,
		DiscoveredSince: c.DiscoveredSince, DiscoveredUntil: c.DiscoveredUntil, Explain: c.Explain,
		ReferenceOnly: c.Reference, AsOf: c.AsOf, History: c.History,
	}
	if c.All {
		all := true
		req.IncludeReference = &all
	}
	res, err := v.Recall(req)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.AnswerOf(req, res))
	}
	render.Search(app.Stdout, app.Stderr, res, c.Explain)
	return nil
}
