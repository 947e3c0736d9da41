package main

import (
	"fmt"
	"strconv"
	"strings"

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
	JSON            bool     `help:"Print the results as JSON." name:"json"`
	Explain         bool     `help:"Show why each result came back: cosine, matched terms, ranks, priors."`
}

func (c *SearchCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	req := vault.SearchRequest{
		Query: c.Query, TopK: c.TopK, Namespace: c.Namespace, Tags: c.Tag, Since: c.Since, Until: c.Until,
		DiscoveredSince: c.DiscoveredSince, DiscoveredUntil: c.DiscoveredUntil, Explain: c.Explain,
		ReferenceOnly: c.Reference,
	}
	if c.All {
		all := true
		req.IncludeReference = &all
	}
	hits, err := v.Search(req)
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"results": hits, "notice": vault.DataNotice})
	}
	if len(hits) == 0 {
		fmt.Fprintln(app.Stderr, "nothing relevant (use --top-k N to see the nearest anyway)")
		return nil
	}
	for _, h := range hits {
		fmt.Fprintf(app.Stdout, "%.3f  %s  %s\n", h.Score, h.ID[:12], inert(h.Text))
		if h.Warning != "" {
			fmt.Fprintf(app.Stdout, "       %s\n", h.Warning)
		}
		if h.UpdatedBy != "" {
			fmt.Fprintf(app.Stdout, "       not current: updated by %s\n", h.UpdatedBy[:12])
		}
		if c.Explain && h.Explain != nil {
			printExplain(app, h.Explain)
		}
	}
	return nil
}

func printExplain(app *App, e *vault.Explanation) {
	var terms []string
	for _, t := range e.Terms {
		terms = append(terms, fmt.Sprintf("%s (I=%.2f)", inert(t.Term), t.Info))
	}
	fmt.Fprintf(app.Stdout, "       semantic: cos %.3f -> p_vec %.3f, rank %d (window %d), weight %.2f (%.0f%% of the query unseen by the model)\n",
		e.Cosine, e.PVec, e.RankVec, e.Window, e.Reliability, 100*e.Unseen)
	without := ""
	if len(e.Framing) > 0 {
		quoted := make([]string, len(e.Framing))
		for i, f := range e.Framing {
			quoted[i] = strconv.Quote(f)
		}
		without = " (without " + strings.Join(quoted, ", ") + ")"
	}
	fmt.Fprintf(app.Stdout, "       literal:  %s match%s, terms %s -> p_lex %.3f, rank %d\n", e.Mode, without, orNone(strings.Join(terms, ", ")), e.PLex, e.RankLex)
	fmt.Fprintf(app.Stdout, "       evidence %.3f (unaged %.3f, vault share %.2f) x priors (importance %+.3f, opinion %+.3f)\n",
		e.Evidence, e.Unaged, e.Share, e.ImportancePrior, e.OpinionPrior)
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
