package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAtomizeCLI(t *testing.T) {
	c := newMemCLI(t)
	long := strings.Repeat("The release slipped a week and the client wants figures first. ", 4)
	var st struct{ ID string }
	c.json(&st, "store", long, "--source", "session log", "--raw")
	c.ok("store", "The staging database runs on port 5433", "--source", "from chat")

	if msg := c.fails("atomize", "--out", filepath.Join(c.dir, "plan.jsonl")); !strings.Contains(msg, "--plaintext") {
		t.Errorf("without --plaintext: %q", msg)
	}
	plan := filepath.Join(c.dir, "plan.jsonl")
	if out := c.ok("atomize", "--out", plan, "--plaintext"); !strings.Contains(out, "wrote 1 memories") {
		t.Errorf("atomize --out: %q", out)
	}
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	var item map[string]any
	if err := json.Unmarshal(data, &item); err != nil || item["id"] != st.ID {
		t.Fatalf("plan line %q: %v", data, err)
	}
	bad := filepath.Join(c.dir, "bad.jsonl")
	item["pieces"] = []string{"The release slipped a week", "# Figures\nthe client wants figures first"}
	line, _ := json.Marshal(item)
	os.WriteFile(bad, append(line, '\n'), 0o600)
	if msg := c.fails("atomize", "--apply", bad); !strings.Contains(msg, "plan line 1: piece 2 is not one claim (contains a heading)") {
		t.Errorf("bad plan: %q", msg)
	}
	item["pieces"] = []string{"The release slipped a week", "The client wants figures first"}
	line, _ = json.Marshal(item)
	os.WriteFile(plan, append(line, '\n'), 0o600)
	var res struct {
		Split, Stored int
		Pieces        map[string][]string
	}
	c.json(&res, "atomize", "--apply", plan)
	if res.Split != 1 || res.Stored != 2 || len(res.Pieces[st.ID]) != 2 {
		t.Fatalf("apply: %+v", res)
	}
	if out := c.ok("get", st.ID); !strings.Contains(out, "split_into") || !strings.Contains(out, res.Pieces[st.ID][1]) {
		t.Errorf("get of the original does not point to its pieces:\n%s", out)
	}
}

func TestOpinionsAuditCLI(t *testing.T) {
	c := newMemCLI(t)
	var a, b struct{ ID string }
	c.json(&a, "store", "Priya prefers tea in the morning at the office", "--source", "from chat", "--kind", "opinion")
	c.json(&b, "store", "Lena prefers cocoa after lunch in the garden", "--source", "from chat")
	var rep struct {
		Backfilled []struct{ ID, Reason string }
		Clusters   []struct{ Keep string }
		Written    bool
	}
	c.json(&rep, "opinions", "audit")
	if len(rep.Backfilled) != 1 || rep.Backfilled[0].ID != b.ID || rep.Backfilled[0].Reason == "" || rep.Written {
		t.Fatalf("audit: %+v", rep)
	}
	if out := c.ok("opinions", "audit"); !strings.Contains(out, "nothing was changed") {
		t.Errorf("text report: %s", out)
	}
	c.json(&rep, "opinions", "audit", "--keep-newest")
	if !rep.Written {
		t.Fatalf("keep-newest: %+v", rep)
	}
	if out := c.ok("get", b.ID); !strings.Contains(out, "opinion") {
		t.Errorf("backfilled record:\n%s", out)
	}
	if msg := c.fails("opinions", "audit", "--threshold", "2"); !strings.Contains(msg, "between 0 and 1") {
		t.Errorf("bad threshold: %q", msg)
	}
}

func TestRetagCLI(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	var old struct{ ID string }
	c.json(&old, "store", "The client wants figures before conclusions in every report", "--source", "from chat", "--tag", "northwind")
	for i := range 12 {
		c.ok("store", "The Harbour client wants figures before conclusions in report "+string(rune('a'+i)), "--source", "from chat", "--tag", "harbour")
	}
	if out := c.ok("retag", "--dry-run"); !strings.Contains(out, "+harbour") || !strings.Contains(out, "would change") {
		t.Errorf("dry run:\n%s", out)
	}
	if out := c.ok("get", old.ID); strings.Contains(out, "harbour") {
		t.Errorf("--dry-run changed tags:\n%s", out)
	}
	var rep struct {
		Changes []struct {
			ID    string
			Added []string
		}
		Written bool
	}
	c.json(&rep, "retag")
	if !rep.Written || !slices.ContainsFunc(rep.Changes, func(ch struct {
		ID    string
		Added []string
	}) bool {
		return ch.ID == old.ID && slices.Equal(ch.Added, []string{"harbour"})
	}) {
		t.Fatalf("retag: %+v", rep)
	}
	if out := c.ok("get", old.ID); !strings.Contains(out, "northwind, harbour (inferred)") {
		t.Errorf("get does not show the tag's origin:\n%s", out)
	}
	if out := c.ok("search", "figures before conclusions", "--tag", "harbour", "--top-k", "20"); !strings.Contains(out, "every report") {
		t.Errorf("a harbour tag search misses the old memory:\n%s", out)
	}
}
