package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// search prints each result's label; --json carries confidence, match,
// valid_then and as_of in the shape memory_search returns; a past time in
// the query reads the vault as of then, and --explain says so.
func TestSearchShowsMatchAndReadsThePast(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	// Thirty memories about other things, so the test's words are as rare
	// as in a user's vault.
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf(`{"text": "Shelf %d in the garage holds box number %d of old %s.", "source": "from chat", "discovered": "2024-11-02"}`,
			i, 100+i, []string{"letters", "tools", "photos", "cables", "books"}[i%5]))
	}
	lines = append(lines, `{"text": "The payments team runs the ledger service in Kotlin.", "source": "from chat", "discovered": "2024-11-02"}`)
	c.importLines(lines...)
	old := c.store("Anna Berg leads the platform team.", "--discovered", "2024-06-01")
	next := c.store("Jonas Ek leads the platform team.", "--discovered", "2026-02-01", "--supersedes", old)

	out := c.ok("search", "who leads the platform team?")
	first := strings.SplitN(out, "\n", 2)[0]
	if !strings.Contains(first, "Jonas Ek") || !(strings.HasPrefix(first, "strong") || strings.HasPrefix(first, "likely") || strings.HasPrefix(first, "weak")) {
		t.Errorf("first line %q: want Jonas Ek with its label", first)
	}

	var res struct {
		Notice  string `json:"notice"`
		Cut     string `json:"cut"`
		AsOf    string `json:"as_of"`
		Results []struct {
			ID         string   `json:"id"`
			Created    string   `json:"created"`
			Tags       []string `json:"tags"`
			Score      float64  `json:"score"`
			Confidence *float64 `json:"confidence"`
			Match      string   `json:"match"`
			ValidThen  string   `json:"valid_then"`
		} `json:"results"`
	}
	c.json(&res, "search", "who led the platform team in March 2025?")
	if res.AsOf != "2025-03-31" || res.Cut != "relevance" || res.Notice == "" || len(res.Results) == 0 {
		t.Fatalf("in March 2025: %+v", res)
	}
	h := res.Results[0]
	if h.ID != old || h.ValidThen == "" || h.Confidence == nil || h.Match == "" || h.Tags == nil || !strings.HasSuffix(h.Created, "Z") {
		t.Errorf("first result %+v: want %s, valid then, with confidence and match", h, old)
	}
	for _, r := range res.Results {
		if r.ID == next && r.ValidThen != "" {
			t.Errorf("the live memory says it was valid then: %q", r.ValidThen)
		}
	}
	out = c.ok("search", "who led the platform team in March 2025?", "--explain")
	if !strings.Contains(out, `as of 2025-03-31 (read from "March 2025")`) || !strings.Contains(out, "confidence ") || !strings.Contains(out, "replaced on 2026-02-01") {
		t.Errorf("explain does not show as_of, confidence or validity:\n%s", out)
	}
	c.json(&res, "search", "who leads the platform team?", "--as-of", "2025-01-10")
	if res.AsOf != "2025-01-10" || len(res.Results) == 0 || res.Results[0].ID != old {
		t.Errorf("--as-of 2025-01-10: %+v", res)
	}
	if _, errOut, code := c.run("search", "platform", "--as-of", "last year"); code == 0 || !strings.Contains(errOut, "as_of") {
		t.Errorf("--as-of \"last year\": exit %d, %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	c.json(&raw, "search", "platform team")
	for _, k := range []string{"notice", "count", "cut", "results"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("search --json has no %q: %v", k, raw)
		}
	}
}
