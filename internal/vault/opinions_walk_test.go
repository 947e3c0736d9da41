package vault

import (
	"slices"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
)

// The walk, end to end with the bundled model: the user's opinions
// of one person on six aspects in main, two agents with their own
// namespaces (claude may only read main, codex may write it), restatements
// and changed minds stored by the agents; then search returns one current
// opinion per aspect, and the audit's advice changes only a true conflict.
func TestOpinionsAcrossAgentsEndToEnd(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, enc)
	cfg := DefaultConfig()
	cfg.Grants = map[string]map[string]Access{
		"*":      {"*": AccessRW},
		"claude": {"*": AccessRO, "claude": AccessRW},
	}
	if err := cfg.Save(h.path); err != nil {
		t.Fatal(err)
	}
	user, claude, codex := h.open("user"), h.open("claude"), h.open("codex")
	tick := func() { h.now = h.now.Add(time.Hour) }

	aspects := map[string]string{
		"editor":   "Lena prefers Zed as her editor.",
		"lunch":    "Lena likes sparkling water with lunch.",
		"reviews":  "Lena prefers code reviews before noon.",
		"monorepo": "Lena thinks a monorepo is the right choice for the team.",
		"coffee":   "Lena prefers oat milk in her coffee.",
		"tea":      "Lena likes tea.",
	}
	order := []string{"editor", "lunch", "reviews", "monorepo", "coffee", "tea"}
	ids := map[string]string{}
	for _, a := range order {
		tick()
		res := h.store(user, StoreRequest{Text: aspects[a], Kind: KindOpinion})
		if !res.Stored || len(res.Conflicts) > 0 {
			t.Fatalf("%s: %q: %+v, want stored: one holder on another aspect is no conflict", a, aspects[a], res)
		}
		ids[a] = res.ID
	}

	// Restatements: codex can write main, so main's opinion is re-affirmed;
	// claude cannot, so its restatement is stored and links main's.
	tick()
	res := h.store(codex, StoreRequest{Text: "Lena would rather have code reviews before noon.", Kind: KindOpinion})
	if !res.Reaffirmed || res.ID != ids["reviews"] {
		t.Fatalf("codex restates reviews: %+v, want main's %s re-affirmed", res, ids["reviews"])
	}
	tick()
	res = h.store(claude, StoreRequest{Text: "Lena is a big fan of sparkling water with lunch.", Kind: KindOpinion})
	if !res.Stored || !slices.Equal(res.Linked, []string{ids["lunch"]}) {
		t.Fatalf("claude restates lunch: %+v, want stored, linking main's %s", res, ids["lunch"])
	}
	current := map[string]string{"lunch": res.ID}

	// A changed mind, stored by claude: reported with main's record, then
	// linked (claude may only read main).
	tick()
	res = h.store(claude, StoreRequest{Text: "Lena now prefers Helix as her editor.", Kind: KindOpinion})
	if res.Stored || len(res.Conflicts) != 1 || res.Conflicts[0].ID != ids["editor"] || res.Conflicts[0].Namespace != "main" {
		t.Fatalf("claude's Helix: %+v, want a conflict with main's Zed %s", res, ids["editor"])
	}
	res = h.store(claude, StoreRequest{Text: "Lena now prefers Helix as her editor.", Kind: KindOpinion, Supersedes: []string{ids["editor"]}})
	if !res.Stored || len(res.Superseded) != 0 || !slices.Equal(res.Linked, []string{ids["editor"]}) {
		t.Fatalf("claude's Helix with supersedes: %+v, want stored, linking %s", res, ids["editor"])
	}
	current["editor"] = res.ID
	// And by codex, which may write main: superseded there.
	tick()
	res = h.store(codex, StoreRequest{Text: "Lena now prefers black coffee, no oat milk in her coffee.", Kind: KindOpinion})
	if res.Stored || len(res.Conflicts) != 1 || res.Conflicts[0].ID != ids["coffee"] {
		t.Fatalf("codex's coffee: %+v, want a conflict with %s", res, ids["coffee"])
	}
	res = h.store(codex, StoreRequest{Text: "Lena now prefers black coffee, no oat milk in her coffee.", Kind: KindOpinion, Supersedes: []string{ids["coffee"]}})
	if !res.Stored || !slices.Equal(res.Superseded, []string{ids["coffee"]}) {
		t.Fatalf("codex's coffee with supersedes: %+v, want %s superseded", res, ids["coffee"])
	}
	current["coffee"] = res.ID
	for _, a := range order {
		if current[a] == "" {
			current[a] = ids[a]
		}
	}
	older := map[string][]string{"editor": {ids["editor"]}, "lunch": {ids["lunch"]}, "coffee": {ids["coffee"]}}

	// Search, as the user (reads every namespace): per aspect, the default
	// answer holds the current opinion, listing the older ones it
	// replaces, and no other opinion of that aspect; with History the
	// older ones come back below it, marked updated_by.
	for _, tc := range []struct{ aspect, query string }{
		{"editor", "Which editor does Lena prefer?"},
		{"lunch", "What does Lena drink with lunch?"},
		{"reviews", "When does Lena want code reviews?"},
		{"monorepo", "What does Lena think of a monorepo?"},
		{"coffee", "How does Lena take her coffee?"},
		{"tea", "Does Lena like tea?"},
	} {
		for _, history := range []bool{false, true} {
			hits, err := user.Search(SearchRequest{Query: tc.query, TopK: 10, History: history})
			if err != nil {
				t.Fatal(err)
			}
			var first *SearchHit
			olderSeen := 0
			for i := range hits {
				hit := &hits[i]
				switch {
				case hit.ID == current[tc.aspect]:
					if first == nil {
						first = hit
					}
					if hit.UpdatedBy != "" {
						t.Errorf("%s: the current opinion %q is marked updated by %s", tc.aspect, hit.Text, hit.UpdatedBy)
					}
					if !slices.Equal(hit.Replaces, older[tc.aspect]) {
						t.Errorf("%s: the current opinion replaces %v, want %v", tc.aspect, hit.Replaces, older[tc.aspect])
					}
				case slices.Contains(older[tc.aspect], hit.ID):
					olderSeen++
					if !history {
						t.Errorf("%s: the older %q is in the default answer", tc.aspect, hit.Text)
					}
					if first == nil {
						t.Errorf("%s: the older %q ranks above the current opinion", tc.aspect, hit.Text)
					}
					if hit.UpdatedBy != current[tc.aspect] {
						t.Errorf("%s: the older %q is not marked updated by %s: %q", tc.aspect, hit.Text, current[tc.aspect], hit.UpdatedBy)
					}
				}
				if hit.UpdatedBy == "" && hit.Kind == KindOpinion && hit.ID != current[tc.aspect] && aspectOf(current, hit.ID) == tc.aspect {
					t.Errorf("%s: two current opinions", tc.aspect)
				}
			}
			if first == nil {
				t.Errorf("%s: %q did not find the current opinion %s in %d hits", tc.aspect, tc.query, current[tc.aspect], len(hits))
			}
			if history && olderSeen != len(older[tc.aspect]) {
				t.Errorf("%s: history returned %d of the %d older opinions", tc.aspect, olderSeen, len(older[tc.aspect]))
			}
		}
	}

	// Claude changes its mind again, superseding its own Helix: main's Zed
	// is updated by the new one (the link follows superseded_by), so Vim
	// alone answers and replaces both; history shows both below it.
	tick()
	vim := h.store(claude, StoreRequest{Text: "Lena now prefers Vim as her editor.", Kind: KindOpinion, Supersedes: []string{current["editor"]}})
	if !vim.Stored {
		t.Fatalf("claude's Vim: %+v", vim)
	}
	hits, err := user.Search(SearchRequest{Query: "Which editor does Lena prefer?", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	wantReplaces := []string{ids["editor"], current["editor"]}
	// Every live memory but the two that newer ones update (main's Zed and
	// main's lunch): TopK leaves room for what the answer leaves out.
	if want := min(10, len(liveIDs(t, user))-2); len(hits) != want || hits[0].ID != vim.ID || !slices.Equal(hits[0].Replaces, wantReplaces) {
		t.Fatalf("after Vim: %d hits, first %q replacing %v, want %d with Vim first replacing Zed and Helix %v", len(hits), hits[0].Text, hits[0].Replaces, want, wantReplaces)
	}
	for _, hit := range hits {
		if hit.ID == ids["editor"] || hit.ID == current["editor"] {
			t.Errorf("after Vim: the older %q is in the default answer", hit.Text)
		}
	}
	hits, err = user.Search(SearchRequest{Query: "Which editor does Lena prefer?", TopK: 10, History: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range wantReplaces {
		i := slices.IndexFunc(hits, func(h SearchHit) bool { return h.ID == old })
		if i <= 0 || hits[i].UpdatedBy != vim.ID || hits[0].ID != vim.ID {
			t.Errorf("after Vim, with history: %s at %d, updated by %q, want below Vim and updated by %s", old, i, hits[max(i, 0)].UpdatedBy, vim.ID)
		}
	}

	// The audit, as the user: plant one true conflict kept on purpose
	// (supersedes=[]); --dry-run lists exactly it, --keep-newest changes
	// exactly it.
	tick()
	tabs := h.store(user, StoreRequest{Text: "Lena prefers tabs for Go code.", Kind: KindOpinion}).ID
	tick()
	spaces := h.store(user, StoreRequest{Text: "Lena prefers spaces for Go code.", Kind: KindOpinion, Supersedes: []string{}}).ID
	live := liveIDs(t, user)
	dry, err := user.OpinionsAudit(OpinionsAuditOptions{KeepNewest: true, DryRun: true, NoBackfill: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Clusters) != 1 || dry.Clusters[0].Keep != spaces || !slices.Equal(dry.Clusters[0].Superseded, []string{tabs}) || dry.Written {
		t.Fatalf("dry run: %+v, want exactly %s superseded by %s", dry.Clusters, tabs, spaces)
	}
	if got := liveIDs(t, user); !slices.Equal(got, live) {
		t.Fatalf("a dry run changed the live set")
	}
	rep, err := user.OpinionsAudit(OpinionsAuditOptions{KeepNewest: true, NoBackfill: true})
	if err != nil || !rep.Written {
		t.Fatal(rep, err)
	}
	want := slices.DeleteFunc(slices.Clone(live), func(id string) bool { return id == tabs })
	if got := liveIDs(t, user); !slices.Equal(got, want) {
		t.Fatalf("--keep-newest: live %v, want %v (only %s superseded)", got, want, tabs)
	}

	// Bare objects across agents: main's "Priya prefers Zed." and
	// claude's "Priya prefers Helix." name no aspect, and the bundled
	// model cannot tell two editors from an editor and a database or a
	// drink (sentence cosines Helix–Zed 0.64, Helix–Postgres 0.82,
	// Zed–tea 0.75; word cosines Helix–Zed −0.06): no rule tells them
	// apart, so neither is folded, superseded or linked on a guess, and
	// "Priya prefers tea." does not conflict with either.
	tick()
	zed := h.store(user, StoreRequest{Text: "Priya prefers Zed.", Kind: KindOpinion})
	tick()
	helix := h.store(claude, StoreRequest{Text: "Priya prefers Helix.", Kind: KindOpinion})
	tick()
	tea := h.store(user, StoreRequest{Text: "Priya prefers tea.", Kind: KindOpinion})
	for _, r := range []StoreResult{zed, helix, tea} {
		if !r.Stored || len(r.Conflicts) > 0 || len(r.Linked) > 0 || len(r.Superseded) > 0 {
			t.Fatalf("bare objects: %q: %+v, want stored on its own", r.Text, r)
		}
	}
	for _, id := range []string{zed.ID, helix.ID, tea.ID} {
		if !slices.Contains(liveIDs(t, user), id) {
			t.Fatalf("bare objects: %s is not live", id)
		}
	}
	// Search says what it can: claude's newer Helix ranks above main's
	// Zed, which is marked maybe_updated_by Helix (a hint, not a link);
	// tea names nothing and is nobody's rival.
	hits, err = user.Search(SearchRequest{Query: "Which editor does Priya prefer?", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	at := func(id string) int { return slices.IndexFunc(hits, func(h SearchHit) bool { return h.ID == id }) }
	z, x := at(zed.ID), at(helix.ID)
	if z < 0 || x < 0 {
		t.Fatalf("bare objects: Zed at %d, Helix at %d in %d hits, want both", z, x, len(hits))
	}
	if x > z || hits[z].MaybeUpdatedBy != helix.ID || hits[z].UpdatedBy != "" || hits[x].MaybeUpdatedBy != "" {
		t.Errorf("bare objects: Helix at %d (maybe_updated_by %q), Zed at %d (maybe_updated_by %q, updated_by %q), want Helix first and Zed marked maybe updated by %s",
			x, hits[x].MaybeUpdatedBy, z, hits[z].MaybeUpdatedBy, hits[z].UpdatedBy, helix.ID)
	}
	for _, h := range hits {
		if h.ID != zed.ID && h.MaybeUpdatedBy != "" {
			t.Errorf("bare objects: %q marked maybe updated by %s", h.Text, h.MaybeUpdatedBy)
		}
	}

	// Bare common things of one kind: claude's later "Priya prefers
	// coffee." and main's tea are two beverages by WordNet
	// ([rivalKinds]), so search ranks coffee first and marks tea
	// maybe_updated_by coffee; still nothing is superseded or linked, and
	// no editor is anybody's rival of a drink.
	tick()
	coffee := h.store(claude, StoreRequest{Text: "Priya prefers coffee.", Kind: KindOpinion})
	if !coffee.Stored || len(coffee.Conflicts) > 0 || len(coffee.Linked) > 0 || len(coffee.Superseded) > 0 {
		t.Fatalf("bare kinds: %+v, want stored on its own", coffee)
	}
	if !slices.Contains(liveIDs(t, user), tea.ID) {
		t.Fatalf("bare kinds: main's tea is not live")
	}
	hits, err = user.Search(SearchRequest{Query: "What does Priya prefer to drink, tea or coffee?", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	te, co := at(tea.ID), at(coffee.ID)
	if te < 0 || co < 0 {
		t.Fatalf("bare kinds: tea at %d, coffee at %d in %d hits, want both", te, co, len(hits))
	}
	if co > te || hits[te].MaybeUpdatedBy != coffee.ID || hits[te].UpdatedBy != "" || hits[co].MaybeUpdatedBy != "" {
		t.Errorf("bare kinds: coffee at %d, tea at %d (maybe_updated_by %q), want coffee first and tea maybe updated by %s",
			co, te, hits[te].MaybeUpdatedBy, coffee.ID)
	}
	for _, h := range hits {
		if m := h.MaybeUpdatedBy; m != "" && !(h.ID == tea.ID && m == coffee.ID || h.ID == zed.ID && m == helix.ID) {
			t.Errorf("bare kinds: %q marked maybe updated by %s", h.Text, m)
		}
	}
}

func TestRivalChoices(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		rival bool
	}{
		{"Priya prefers Zed.", "Priya prefers Helix.", true},
		{"Priya prefers Zed as her editor.", "Priya favours Helix as her editor.", true},
		{"Priya would rather use Zed.", "Priya prefers Helix.", true},
		{"Priya prefers Zed.", "Priya prefers tea.", false},            // tea names nothing
		{"Priya likes Zed.", "Priya likes Helix.", false},              // a liking holds for many
		{"Priya prefers Zed.", "Oskar prefers Helix.", false},          // two holders
		{"Priya prefers Zed.", "Priya doesn't prefer Helix.", false},   // a negation
		{"Priya prefers Zed.", "Priya prefers Helix over Vim.", false}, // a comparison
		{"Priya prefers Zed for Go.", "Priya prefers Helix for Rust.", false},
		{"Priya prefers Zed for work.", "Priya prefers Helix at home.", false},
		{"Priya prefers Zed.", "Priya prefers Zed.", false}, // one name: the store's own rule
		// Common things of one kind by WordNet ([rivalKinds]).
		{"Priya prefers tea.", "Priya prefers coffee.", true},
		{"Priya prefers tea with lunch.", "Priya would rather have coffee with lunch.", true},
		{"Priya prefers spring.", "Priya prefers autumn.", true},
		{"Priya prefers tea.", "Priya prefers sofas.", false},              // two kinds
		{"Priya prefers tea.", "Priya prefers coffee with lunch.", false},  // a context added
		{"Priya prefers green tea.", "Priya prefers black coffee.", false}, // two words differ
		{"Priya likes tea.", "Priya likes coffee.", false},                 // a liking holds for many
		{"Priya prefers tea.", "Priya doesn't prefer coffee.", false},      // a negation
		{"Priya prefers tea.", "Priya prefers coffee over tea.", false},    // a comparison
		{"Priya prefers winter.", "Priya prefers wintertime.", false},      // one thing
	} {
		a, okA := choiceParts(tc.a)
		b, okB := choiceParts(tc.b)
		if got := okA && okB && rivalChoices(a, b); got != tc.rival {
			t.Errorf("rivalChoices(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.rival)
		}
	}
}

func aspectOf(current map[string]string, id string) string {
	for a, c := range current {
		if c == id {
			return a
		}
	}
	return ""
}

// liveIDs are the ids of the live records the caller can read, sorted.
func liveIDs(t *testing.T, v *Vault) []string {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []string
	for id, r := range v.st.records.all() {
		if r.Live() && !r.Reference && v.canRead(r.Namespace) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
