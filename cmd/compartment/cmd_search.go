package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/compartment/compartment/internal/api"
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
	JSON            bool     `help:"Print the results as JSON." name:"json"`
	Explain         bool     `help:"Show why each result came back: cosine, matched terms, ranks, priors, confidence, the day read as of."`
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
		ReferenceOnly: c.Reference, AsOf: c.AsOf,
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
		return printJSON(app.Stdout, api.AnswerOf(req, res))
	}
	if res.AsOf != "" {
		from := ""
		if res.AsOfPhrase != "" {
			from = fmt.Sprintf(" (read from %q)", inert(res.AsOfPhrase))
		}
		fmt.Fprintf(app.Stdout, "as of %s%s: memories valid then first\n", res.AsOf, from)
	} else if c.Explain {
		fmt.Fprintln(app.Stdout, "as of now (the query names no past time)")
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(app.Stderr, "nothing shares a word or a meaning with the query")
		return nil
	}
	for _, h := range res.Hits {
		// The label is how far to rely on a result: strong, likely, or
		// weak (check it first).
		fmt.Fprintf(app.Stdout, "%-6s  %.3f  %s  %s\n", h.Match, h.Score, h.ID[:12], inert(h.Text))
		if h.ValidThen != "" {
			fmt.Fprintf(app.Stdout, "        %s\n", inert(h.ValidThen))
		}
		if h.Warning != "" {
			fmt.Fprintf(app.Stdout, "        %s\n", h.Warning)
		}
		if h.UpdatedBy != "" {
			fmt.Fprintf(app.Stdout, "       not current: updated by %s\n", h.UpdatedBy[:12])
		}
		if h.MaybeUpdatedBy != "" {
			fmt.Fprintf(app.Stdout, "       may not be current: %s, newer, names another choice\n", h.MaybeUpdatedBy[:12])
		}
		if c.Explain && h.Explain != nil {
			printExplain(app, h)
		}
	}
	return nil
}

func printExplain(app *App, h vault.SearchHit) {
	e := h.Explain
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
	fmt.Fprintf(app.Stdout, "       evidence %.3f (unaged %.3f, vault share %.2f) x priors (importance %+.3f, opinion %+.3f, reference %+.3f)\n",
		e.Evidence, e.Unaged, e.Share, e.ImportancePrior, e.OpinionPrior, e.ReferencePrior)
	rare := ""
	if e.Rare {
		rare = ", holds a rare query word"
	}
	fmt.Fprintf(app.Stdout, "       confidence %.3f (%s): relevance %.3f, lead %+.3f over the next candidate, standout %+.3f over the 20th%s\n",
		h.Confidence, h.Match, e.Relevance, e.Lead, e.Standout, rare)
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
