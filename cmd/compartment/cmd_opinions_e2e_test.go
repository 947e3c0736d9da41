package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
)

// The scripted walk through the real binary: the user's opinions
// of one person on five aspects in main; two agents, claude (may only read
// main, writes its own namespace) and codex (may write main); restatements
// by both; a changed mind stored by each. Search then returns one current
// opinion per aspect, the one that says what it replaces; --history and
// --as-of still reach the older ones; and following `opinions audit
// --keep-newest` changes only the one true conflict.
func TestOpinionsOneCurrentPerAspectEndToEnd(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	cfg := vault.DefaultConfig()
	cfg.Grants = map[string]map[string]vault.Access{
		"*":      {"*": vault.AccessRW},
		"claude": {"*": vault.AccessRO, "claude": vault.AccessRW},
	}
	if err := cfg.Save(c.vault); err != nil {
		t.Fatal(err)
	}
	type storeOut struct {
		ID         string
		Stored     bool
		Reaffirmed bool
		Conflicts  []struct{ ID, Namespace string }
		Superseded []string
		Linked     []string
	}
	store := func(caller, text string, extra ...string) storeOut {
		t.Helper()
		args := append([]string{"--caller", caller, "store", text, "--source", "from chat", "--kind", "opinion", "--json"}, extra...)
		out, errOut, code := c.run(args...)
		var res storeOut
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 && code != exitNotStored {
			t.Fatalf("%s stores %q: exit %d: %v\n%s%s", caller, text, code, err, out, errOut)
		}
		if (code == exitNotStored) != (len(res.Conflicts) > 0) {
			t.Fatalf("%s stores %q: exit %d with %d conflicts", caller, text, code, len(res.Conflicts))
		}
		return res
	}

	// Zed was learned in January, so a search as of February reads it as
	// current then.
	aspects := []struct{ name, text, discovered string }{
		{"editor", "Lena prefers Zed as her editor.", "2026-01-10"},
		{"lunch", "Lena likes sparkling water with lunch.", ""},
		{"reviews", "Lena prefers code reviews before noon.", ""},
		{"monorepo", "Lena thinks a monorepo is the right choice for the team.", ""},
		{"coffee", "Lena prefers oat milk in her coffee.", ""},
	}
	first := map[string]string{}
	for _, a := range aspects {
		var extra []string
		if a.discovered != "" {
			extra = []string{"--discovered", a.discovered}
		}
		res := store("user", a.text, extra...)
		if !res.Stored || len(res.Conflicts) > 0 {
			t.Fatalf("%s: %+v, want stored: one person on another aspect is no conflict", a.name, res)
		}
		first[a.name] = res.ID
	}
	// of is each aspect's records, oldest first; current the live answer.
	of := map[string][]string{}
	for a, id := range first {
		of[a] = []string{id}
	}
	current := maps.Clone(first)

	// Restatements. Codex may write main: main's opinion is re-affirmed,
	// nothing new is stored. Claude may not: its restatement is stored in
	// claude and links main's, and becomes the current one.
	if res := store("codex", "Lena would rather have code reviews before noon."); !res.Reaffirmed || res.ID != first["reviews"] {
		t.Fatalf("codex restates reviews: %+v, want main's %s re-affirmed", res, first["reviews"])
	}
	res := store("claude", "Lena is a big fan of sparkling water with lunch.")
	if !res.Stored || !slices.Equal(res.Linked, []string{first["lunch"]}) {
		t.Fatalf("claude restates lunch: %+v, want stored, linking main's %s", res, first["lunch"])
	}
	of["lunch"], current["lunch"] = append(of["lunch"], res.ID), res.ID

	// Changed minds. Claude's Helix first comes back as a conflict naming
	// main's Zed; resent with --supersedes it links Zed (claude may only
	// read main).
	helix := "Lena now prefers Helix as her editor."
	res = store("claude", helix)
	if res.Stored || len(res.Conflicts) != 1 || res.Conflicts[0].ID != first["editor"] || res.Conflicts[0].Namespace != "main" {
		t.Fatalf("claude's Helix: %+v, want a conflict with main's Zed %s", res, first["editor"])
	}
	res = store("claude", helix, "--supersedes", first["editor"])
	if !res.Stored || len(res.Superseded) != 0 || !slices.Equal(res.Linked, []string{first["editor"]}) {
		t.Fatalf("claude's Helix with --supersedes: %+v, want stored, linking %s", res, first["editor"])
	}
	of["editor"], current["editor"] = append(of["editor"], res.ID), res.ID
	// Codex's black coffee supersedes main's oat milk.
	black := "Lena now prefers black coffee, no oat milk in her coffee."
	res = store("codex", black, "--supersedes", first["coffee"])
	if !res.Stored || !slices.Equal(res.Superseded, []string{first["coffee"]}) {
		t.Fatalf("codex's coffee: %+v, want %s superseded", res, first["coffee"])
	}
	of["coffee"], current["coffee"] = append(of["coffee"], res.ID), res.ID

	aspectOf := func(id string) string {
		for a, ids := range of {
			if slices.Contains(ids, id) {
				return a
			}
		}
		return ""
	}
	type hit struct {
		ID        string
		Text      string
		Kind      string
		UpdatedBy string `json:"updated_by"`
		Replaces  []string
		ValidThen string `json:"valid_then"`
	}
	search := func(query string, extra ...string) []hit {
		t.Helper()
		var ans struct{ Results []hit }
		c.json(&ans, append([]string{"search", query, "--top-k", "10"}, extra...)...)
		return ans.Results
	}
	// byAspect is each aspect's opinions in hits, in rank order.
	byAspect := func(hits []hit) map[string][]hit {
		out := map[string][]hit{}
		for _, h := range hits {
			if a := aspectOf(h.ID); a != "" {
				out[a] = append(out[a], h)
			}
		}
		return out
	}
	queries := map[string]string{
		"editor":   "Which editor does Lena prefer?",
		"lunch":    "What does Lena drink with lunch?",
		"reviews":  "When does Lena want code reviews?",
		"monorepo": "What does Lena think of a monorepo?",
		"coffee":   "How does Lena take her coffee?",
	}
	for _, a := range aspects {
		older := of[a.name][:len(of[a.name])-1]
		got := byAspect(search(queries[a.name]))[a.name]
		if len(got) != 1 || got[0].ID != current[a.name] {
			t.Errorf("%s: %q returned %d opinions of the aspect (%v), want only the current %s", a.name, queries[a.name], len(got), got, current[a.name])
			continue
		}
		if !slices.Equal(got[0].Replaces, older) {
			t.Errorf("%s: the current opinion replaces %v, want %v", a.name, got[0].Replaces, older)
		}
		// --history brings the older ones back, below it and marked.
		hist := byAspect(search(queries[a.name], "--history"))[a.name]
		if len(hist) != len(of[a.name]) || hist[0].ID != current[a.name] {
			t.Errorf("%s --history: %v, want the current %s first, then the %d older", a.name, hist, current[a.name], len(older))
			continue
		}
		for _, h := range hist[1:] {
			if h.UpdatedBy != current[a.name] {
				t.Errorf("%s --history: the older %q is marked updated by %q, want %s", a.name, h.Text, h.UpdatedBy, current[a.name])
			}
		}
	}
	// One question over all of them: still one opinion per aspect.
	for a, got := range byAspect(search("What does Lena like and prefer?", "--top-k", "20")) {
		if len(got) != 1 || got[0].ID != current[a] {
			t.Errorf("a broad question returned %d opinions on %s (%v), want only the current %s", len(got), a, got, current[a])
		}
	}
	// The text answer says which one is current.
	if text := c.ok("search", queries["editor"]); !strings.Contains(text, "current: replaces "+first["editor"][:12]) {
		t.Errorf("the text answer does not say the current editor replaces Zed:\n%s", text)
	}
	// As of February, Zed was current: it comes back, first of its aspect.
	got := byAspect(search(queries["editor"], "--as-of", "2026-02-01"))["editor"]
	if len(got) == 0 || got[0].ID != first["editor"] {
		t.Errorf("as of 2026-02-01: %v, want main's Zed %s first", got, first["editor"])
	}

	// A filter that leaves the newer one out keeps the older, marked.
	got = byAspect(search(queries["editor"], "--namespace", "main"))["editor"]
	if len(got) != 1 || got[0].ID != first["editor"] || got[0].UpdatedBy != current["editor"] {
		t.Errorf("--namespace main: %v, want main's Zed %s marked updated by %s", got, first["editor"], current["editor"])
	}

	// The audit as the user, with one true conflict kept on purpose:
	// --dry-run lists exactly it and --keep-newest supersedes exactly it.
	tabs := store("user", "Lena prefers tabs for Go code.", "--keep-both").ID
	spaces := store("user", "Lena prefers spaces for Go code.", "--keep-both").ID
	type report struct {
		Clusters []struct {
			Keep       string
			Superseded []string
		}
		Written bool
	}
	var dry report
	c.json(&dry, "opinions", "audit", "--dry-run", "--no-backfill")
	if len(dry.Clusters) != 1 || dry.Clusters[0].Keep != spaces || !slices.Equal(dry.Clusters[0].Superseded, []string{tabs}) || dry.Written {
		t.Fatalf("audit --dry-run: %+v, want exactly tabs %s under spaces %s", dry, tabs, spaces)
	}
	live := func() []string {
		var ids []string
		for _, a := range aspects {
			for _, id := range of[a.name] {
				var m struct {
					SupersededBy string `json:"superseded_by"`
				}
				c.json(&m, "get", id)
				if m.SupersededBy == "" {
					ids = append(ids, id)
				}
			}
		}
		return ids
	}
	before := live()
	var rep report
	c.json(&rep, "opinions", "audit", "--keep-newest", "--no-backfill")
	if !rep.Written || len(rep.Clusters) != 1 {
		t.Fatalf("audit --keep-newest: %+v, want one cluster written", rep)
	}
	if after := live(); !slices.Equal(after, before) {
		t.Errorf("audit --keep-newest changed opinions on the five aspects: live %v, was %v", after, before)
	}
	var m struct {
		SupersededBy string `json:"superseded_by"`
	}
	c.json(&m, "get", tabs)
	if m.SupersededBy != spaces {
		t.Errorf("audit --keep-newest: tabs superseded by %q, want %s", m.SupersededBy, spaces)
	}
	for _, a := range aspects {
		if got := byAspect(search(queries[a.name]))[a.name]; len(got) != 1 || got[0].ID != current[a.name] {
			t.Errorf("after the audit, %s: %v, want only the current %s", a.name, got, current[a.name])
		}
	}
}
