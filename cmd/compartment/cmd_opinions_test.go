package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// Following the audit's advice is safe: on a vault of one person's
// opinions on many aspects (the walk, all kept on purpose) and two
// true conflicts, --dry-run lists exactly the two older opinions and
// writes nothing, and --keep-newest supersedes exactly those two.
func TestOpinionsAuditAdviceIsSafe(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	store := func(text string) string {
		var res struct{ ID string }
		c.json(&res, "store", text, "--source", "from chat", "--kind", "opinion", "--keep-both")
		return res.ID
	}
	var others []string
	for _, text := range []string{
		"Lena prefers oat milk in her coffee.",
		"Lena likes sparkling water with lunch.",
		"Lena prefers code reviews before noon.",
		"Lena thinks a monorepo is the right choice for the team.",
		"Lena likes tea.",
		"Marcus prefers dark roast coffee.",
	} {
		others = append(others, store(text))
	}
	zed := store("Lena prefers Zed as her editor.")
	tabs := store("Lena prefers tabs for Go code.")
	helix := store("Lena now prefers Helix as her editor.")
	spaces := store("Lena prefers spaces for Go code.")

	type report struct {
		Clusters []struct {
			Keep       string
			Superseded []string
		}
		Written bool
		DryRun  bool `json:"dry_run"`
	}
	before, err := os.ReadFile(c.vault)
	if err != nil {
		t.Fatal(err)
	}
	var dry report
	c.json(&dry, "opinions", "audit", "--dry-run", "--no-backfill")
	want := map[string][]string{helix: {zed}, spaces: {tabs}}
	got := map[string][]string{}
	for _, cl := range dry.Clusters {
		got[cl.Keep] = cl.Superseded
	}
	if len(got) != 2 || !slices.Equal(got[helix], want[helix]) || !slices.Equal(got[spaces], want[spaces]) || dry.Written || !dry.DryRun {
		t.Fatalf("dry run: %+v, want Zed under Helix and tabs under spaces, nothing else", dry)
	}
	if text := c.ok("opinions", "audit", "--dry-run", "--no-backfill"); !strings.Contains(text, "would supersede") || !strings.Contains(text, "nothing was changed") {
		t.Errorf("dry-run text:\n%s", text)
	}
	if after, _ := os.ReadFile(c.vault); !bytes.Equal(before, after) {
		t.Fatal("--dry-run wrote to the vault")
	}

	var rep report
	c.json(&rep, "opinions", "audit", "--keep-newest", "--no-backfill")
	if !rep.Written || len(rep.Clusters) != 2 {
		t.Fatalf("keep-newest: %+v", rep)
	}
	live := func(id string) bool {
		var m struct {
			SupersededBy string `json:"superseded_by"`
		}
		c.json(&m, "get", id)
		return m.SupersededBy == ""
	}
	for _, id := range append(others, helix, spaces) {
		if !live(id) {
			t.Errorf("--keep-newest superseded %s, an opinion on another aspect", id)
		}
	}
	for _, id := range []string{zed, tabs} {
		if live(id) {
			t.Errorf("--keep-newest left the older %s live", id)
		}
	}
}
