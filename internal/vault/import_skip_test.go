package vault

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// organicLines are the export's memory lines that are the user's own (not
// reference facts, not pack records), as id -> text, and how often each
// id appears.
func organicLines(t *testing.T, export []byte) (map[string]string, map[string]int) {
	t.Helper()
	texts, seen := map[string]string{}, map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(export), []byte("\n")) {
		var l importLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		if l.Type != "memory" || l.Reference || isPack(l.Namespace) {
			continue
		}
		texts[l.ID] = l.Namespace + "|" + l.Text + "|" + l.Source + "|" + l.Discovered + "|" + strings.Join(l.Tags, ",")
		seen[l.ID]++
	}
	return texts, seen
}

// TestExportImportExportOrganic: export a vault that has reference facts,
// an installed pack and the user's own memories; import it into a new
// vault (with its own reference facts); export again. The organic records
// are the same, once each; the reference facts and pack records were
// skipped, counted by reason; a second import stores nothing.
func TestExportImportExportOrganic(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	ref := []BulkFact{{Text: "Debian 13 is called trixie", Source: "reference"}, {Text: "The apt config lives in /etc/apt", Source: "reference"}}
	if _, err := v.LoadReference(ref, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.InstallPack(signedPack(t, "ops", "1", []PackMemory{{Text: "Deploys go through the release branch", Source: "ops"}})); err != nil {
		t.Fatal(err)
	}
	a := h.store(v, StoreRequest{Text: "Priya's daughter starts school in September", Tags: []string{"family"}, Discovered: "2026-08-01"})
	h.store(v, StoreRequest{Text: "The staging database listens on port 5433", Namespace: "work"})
	h.store(v, StoreRequest{Text: "Priya prefers code reviews before noon", Kind: KindOpinion})
	if _, err := v.Link(LinkRequest{Subject: "Priya", Predicate: "parent_of", Object: "Mia", Src: a.ID}); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if _, err := v.Export(&first); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, nil)
	v2 := h2.open("user")
	if _, err := v2.LoadReference(ref, "test"); err != nil {
		t.Fatal(err)
	}
	res, err := v2.Import(bytes.NewReader(first.Bytes()), "import", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stored != 3 || res.Relations != 1 || res.Reference != 2 || res.Packs != 1 || res.Present != 0 || res.Skipped != 3 {
		t.Fatalf("import: %+v", res)
	}
	again, err := v2.Import(bytes.NewReader(first.Bytes()), "import", nil)
	if err != nil || again.Stored != 0 || again.Relations != 0 || again.Present != 4 || again.Reference != 2 || again.Packs != 1 {
		t.Fatalf("second import: %+v %v", again, err)
	}
	var second bytes.Buffer
	if _, err := v2.Export(&second); err != nil {
		t.Fatal(err)
	}
	want, _ := organicLines(t, first.Bytes())
	got, seen := organicLines(t, second.Bytes())
	if len(want) != 3 || len(got) != len(want) {
		t.Fatalf("organic records: %d after, %d before\n%v\n%v", len(got), len(want), got, want)
	}
	for id, text := range want {
		if got[id] != text || seen[id] != 1 {
			t.Errorf("%s: %q (seen %d times), want %q once", id, got[id], seen[id], text)
		}
	}
	// The new vault has its own two reference facts, not four, and no
	// pack (it was never installed there).
	recent, err := v2.Recent(RecentRequest{Limit: 100, All: true})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, r := range recent {
		if r.Reference {
			refs = append(refs, r.Text)
		}
		if isPack(r.Namespace) {
			t.Errorf("a pack record was imported: %+v", r)
		}
	}
	slices.Sort(refs)
	if len(refs) != 2 {
		t.Fatalf("reference facts after import: %q", refs)
	}
}
