package vault

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

func tagsOf(t *testing.T, v *Vault, id string) []string {
	t.Helper()
	r, err := v.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return r.Tags
}

// TestRetagNorthwindBecomesHarbour is the scenario: a memory tagged
// northwind gains harbour once 30 Harbour memories sit around it, and an
// inferred northwind is pruned only when no neighbour was given it.
func TestRetagNorthwindBecomesHarbour(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	m := h.store(v, StoreRequest{Text: "The client wants figures before conclusions in every report", Tags: []string{"northwind"}}).ID
	for i := range 12 {
		h.store(v, StoreRequest{Text: fmt.Sprintf("Unrelated note %d about garden tomatoes and bicycle repair shop hours", i), Tags: []string{fmt.Sprintf("misc-%d", i)}})
	}
	n := h.store(v, StoreRequest{Text: "Northwind invoices are due on the first Monday of the month"}).ID
	var nw []string
	for i := range 6 {
		res := h.store(v, StoreRequest{Text: fmt.Sprintf("Northwind invoices for %s are due on the first Monday of the month", []string{"design", "legal", "sales", "support", "research", "hiring"}[i]), Tags: []string{"northwind"}})
		if !res.Stored {
			t.Fatalf("not stored: %+v", res)
		}
		nw = append(nw, res.ID)
	}
	rep, err := v.Retag(RetagOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(t, v, m); !slices.Equal(got, []string{"northwind"}) {
		t.Fatalf("before any Harbour memory, m has tags %v (report %+v)", got, rep.Changes)
	}
	if got := tagsOf(t, v, n); !slices.Equal(got, []string{"northwind"}) {
		t.Fatalf("n did not infer northwind from its neighbours: %v", got)
	}

	for i := range 30 {
		h.store(v, StoreRequest{Text: fmt.Sprintf("The Harbour client wants figures before conclusions in report %d", i), Tags: []string{"harbour"}})
		h.store(v, StoreRequest{Text: fmt.Sprintf("Harbour invoices are due on the first Monday of the month for team %d", i), Tags: []string{"harbour"}})
	}
	before, _ := os.ReadFile(h.path)
	dry, err := v.Retag(RetagOptions{DryRun: true, Prune: true})
	if err != nil || dry.Written {
		t.Fatal(dry, err)
	}
	if after, _ := os.ReadFile(h.path); !bytes.Equal(before, after) {
		t.Fatal("--dry-run wrote to the vault")
	}
	if _, err := v.Retag(RetagOptions{Prune: true}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(t, v, m); !slices.Equal(got, []string{"northwind", "harbour"}) {
		t.Errorf("m after 30 Harbour memories: %v, want northwind (given, kept) and harbour (inferred)", got)
	}
	if got := tagsOf(t, v, n); !slices.Contains(got, "northwind") {
		t.Errorf("n lost northwind while neighbours given northwind remain: %v", got)
	}

	for _, id := range nw {
		if _, err := v.Forget(id, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Retag(RetagOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(t, v, n); !slices.Contains(got, "northwind") {
		t.Errorf("without --prune an inferred tag must stay: %v", got)
	}
	rep, err = v.Retag(RetagOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = h.open("user")
	r, _ := v.Get(n)
	if slices.Contains(r.Tags, "northwind") || !slices.Contains(r.Tags, "harbour") {
		t.Errorf("n once nothing supports northwind: %v (report %+v)", r.Tags, rep.Changes)
	}
	if r.Text != "Northwind invoices are due on the first Monday of the month" || len(r.TagsOrigin) != 0 {
		t.Errorf("retag changed more than tags: %+v", r)
	}
	mr, _ := v.Get(m)
	if !slices.Equal(mr.TagsOrigin, []string{"northwind"}) || !slices.Equal(mr.InferredTags(), []string{"harbour"}) {
		t.Errorf("origin of m's tags: given %v, inferred %v", mr.TagsOrigin, mr.InferredTags())
	}
	hits, err := v.Search(SearchRequest{Query: "figures before conclusions", Tags: []string{"harbour"}, TopK: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(hits, func(h SearchHit) bool { return h.ID == m }) {
		t.Errorf("a harbour tag search does not find the old northwind memory")
	}
	if a, err := v.AuditVerify(); err != nil || !a.OK {
		t.Errorf("audit chain: %+v %v", a, err)
	}
	if rep, _ := v.Retag(RetagOptions{Prune: true}); len(rep.Changes) != 0 {
		t.Errorf("a second pass still changes %+v: tags flap", rep.Changes)
	}
}

func TestRetagRules(t *testing.T) {
	rec := &Record{Tags: []string{"given", "old"}, TagsOrigin: []string{"given"}}
	got, added, removed := retagged(rec, map[string]float64{"new": 0.6, "weak": 0.2}, true)
	if !slices.Equal(got, []string{"given", "new"}) || !slices.Equal(added, []string{"new"}) || !slices.Equal(removed, []string{"old"}) {
		t.Errorf("retagged: %v +%v -%v (the given tag stays, the unsupported inferred one goes, the majority one comes)", got, added, removed)
	}
	if got, _, _ = retagged(rec, map[string]float64{"old": 0.05}, true); !slices.Equal(got, []string{"given", "old"}) {
		t.Errorf("a tag one neighbour supports was pruned: %v", got)
	}
	if got, _, _ = retagged(rec, nil, false); !slices.Equal(got, []string{"given", "old"}) {
		t.Errorf("without prune nothing is removed: %v", got)
	}
	if got, _, _ = retagged(rec, nil, true); !slices.Equal(got, []string{"given"}) {
		t.Errorf("prune with no support at all: %v (the given tag is never removed)", got)
	}
}

// TestRetagLeavesWhatChangedDuringThePass: the pass runs without holding
// the vault, so memories change under it. A memory another process
// forgets and one superseded on this handle must come out as those
// writers left them: not resurrected, not un-superseded. The untouched
// ones get their tag, even though the other process compacted the file
// meanwhile (so this handle reads every record again, as new values).
func TestRetagLeavesWhatChangedDuringThePass(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	for _, team := range []string{"design", "legal", "sales", "support", "research", "hiring"} {
		h.store(v, StoreRequest{Text: "Northwind invoices for " + team + " are due on the first Monday of the month", Tags: []string{"northwind"}})
	}
	var ids []string
	for _, team := range []string{"finance", "operations", "marketing", "security"} {
		ids = append(ids, h.store(v, StoreRequest{Text: "Northwind invoices for " + team + " are due on the first Monday of the month"}).ID)
	}
	forgotten, superseded, untouched := ids[0], ids[1], ids[2:]
	other := h.open("user") // another process on the same file
	var replacement string
	during := func() {
		if _, err := other.Forget(forgotten, false); err != nil {
			t.Error(err)
		}
		replacement = h.store(v, StoreRequest{Text: "Northwind invoices for operations are due on the second Monday", Supersedes: []string{superseded}}).ID
		if err := other.Flush(); err != nil {
			t.Error(err)
		}
	}
	done := make(chan RetagReport, 1)
	go func() {
		rep, err := v.Retag(RetagOptions{Progress: func(n, total int) {
			if n == total {
				during() // every neighbourhood read, nothing written yet
			}
		}})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	var rep RetagReport
	select {
	case rep = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retag still holds the vault while it reads neighbourhoods: a store and a forget from its progress callback never ran")
	}
	if _, err := v.Get(forgotten); err == nil {
		t.Errorf("the memory forgotten during the pass is back")
	}
	if r, err := v.Get(superseded); err != nil || r.SupersededBy != replacement || len(r.Tags) != 0 {
		t.Errorf("the memory superseded during the pass: %+v %v (want superseded by %s, tags untouched)", r, err, replacement)
	}
	for _, id := range untouched {
		if got := tagsOf(t, v, id); !slices.Equal(got, []string{"northwind"}) {
			t.Errorf("an untouched memory did not gain northwind: %v", got)
		}
	}
	if rep.Skipped != 2 || len(rep.Changes) != 2 || rep.Added != 2 || !rep.Written {
		t.Errorf("report: %d skipped, changes %+v, written %v; want 2 skipped and the 2 untouched written", rep.Skipped, rep.Changes, rep.Written)
	}
	if a, err := v.AuditVerify(); err != nil || !a.OK {
		t.Errorf("audit chain: %+v %v", a, err)
	}
}
