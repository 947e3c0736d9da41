package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// atomizeFixture stores two memories that are not one claim (raw, as an
// old vault holds them) and one that is, and returns their ids.
func atomizeFixture(t *testing.T, h *harness, v *Vault) (long, list, fine string) {
	t.Helper()
	long = h.store(v, StoreRequest{Text: strings.Repeat("The deploy ran late and the reviewers asked for figures first. ", 5),
		Raw: true, Source: "session log", Discovered: "2025-03-04", Tags: []string{"northwind"}, Importance: ptr(0.8)}).ID
	list = h.store(v, StoreRequest{Text: "Decisions:\n- ship on Friday\n- Priya reviews", Raw: true, Source: "meeting notes"}).ID
	fine = h.store(v, StoreRequest{Text: "The staging database runs on port 5433"}).ID
	return
}

func writePlan(t *testing.T, items []AtomizeItem, pieces map[string][]string) string {
	t.Helper()
	var b bytes.Buffer
	for _, it := range items {
		it.Pieces = pieces[it.ID]
		line, _ := json.Marshal(it)
		b.Write(append(line, '\n'))
	}
	return b.String()
}

func TestAtomizeListsAndSplits(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	long, list, fine := atomizeFixture(t, h, v)
	items, err := v.AtomizeCandidates()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].ID != long || items[1].ID != list {
		t.Fatalf("candidates %+v, want the long one then the list (not %s)", items, fine)
	}
	if !strings.Contains(items[0].Reason, "characters") || !strings.Contains(items[1].Reason, "list") {
		t.Errorf("reasons: %q, %q", items[0].Reason, items[1].Reason)
	}
	plan := writePlan(t, items, map[string][]string{
		long: {"The deploy ran late", "The reviewers asked for figures first"},
		list: {"The team decided to ship on Friday", "Priya reviews the release"},
	})
	h.now = h.now.Add(48 * 3600e9) // applied two days later: pieces keep the original's dates
	var progressed int
	res, err := v.ApplyAtomize(strings.NewReader(plan), func(done, total int) { progressed = done })
	if err != nil {
		t.Fatal(err)
	}
	if res.Split != 2 || res.Stored != 4 || progressed != 4 {
		t.Fatalf("result %+v, progress %d", res, progressed)
	}
	// Reopen: everything below is read back from the file.
	v.Close()
	v = h.open("user")
	orig, err := v.Get(long)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Live() || len(orig.SplitInto) != 2 || orig.SupersededBy != orig.SplitInto[0] {
		t.Fatalf("original after atomize: live %v, split into %v, superseded by %s", orig.Live(), orig.SplitInto, orig.SupersededBy)
	}
	for i, id := range orig.SplitInto {
		p, err := v.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != [...]string{"The deploy ran late", "The reviewers asked for figures first"}[i] {
			t.Errorf("piece %d text %q", i, p.Text)
		}
		if p.Source != "session log" || p.Discovered != "2025-03-04" || !p.Created.Equal(orig.Created) ||
			p.Importance != 0.8 || len(p.Tags) != 1 || p.Tags[0] != "northwind" || len(p.Supersedes) != 1 || p.Supersedes[0] != long || !p.Live() {
			t.Errorf("piece %d does not carry the original's provenance: %+v", i, p)
		}
	}
	hits, err := v.Search(SearchRequest{Query: "reviewers figures first", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, hit := range hits {
		if hit.ID == long {
			t.Errorf("the superseded original is still found by search")
		}
	}
	if len(hits) == 0 || hits[0].ID != orig.SplitInto[1] {
		t.Errorf("search does not find the piece first: %v", hits)
	}
	if items, _ := v.AtomizeCandidates(); len(items) != 0 {
		t.Errorf("after the plan, still to split: %+v", items)
	}
	if rep, err := v.AuditVerify(); err != nil || !rep.OK {
		t.Errorf("audit chain after atomize: %+v %v", rep, err)
	}
}

func TestAtomizeBadPlanChangesNothing(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	long, list, fine := atomizeFixture(t, h, v)
	items, _ := v.AtomizeCandidates()
	good := map[string][]string{long: {"The deploy ran late"}, list: {"The team ships on Friday"}}
	before, _ := os.ReadFile(h.path)
	for name, tc := range map[string]struct {
		plan string
		want string
	}{
		"a piece with a list": {writePlan(t, items, map[string][]string{long: good[long], list: {"Decisions:\n- ship\n- review"}}), "plan line 2: piece 1 is not one claim (contains a list)"},
		"a piece too long":    {writePlan(t, items, map[string][]string{long: {strings.Repeat("x", 300)}, list: good[list]}), "plan line 1: piece 1 is not one claim (is 300 characters"},
		"no pieces":           {writePlan(t, items, map[string][]string{long: good[long]}), "plan line 2: no pieces"},
		"unknown id":          {`{"id":"00000000000000000000000000000000","pieces":["A claim"]}`, "plan line 1: memory"},
		"not JSON":            {writePlan(t, items, good) + "{oops\n", "plan line 3 is not JSON"},
		"twice":               {writePlan(t, items, good) + writePlan(t, items[:1], good), "is also on line 1"},
		"empty":               {"\n", "the plan is empty"},
	} {
		_, err := v.ApplyAtomize(strings.NewReader(tc.plan), nil)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
	after, _ := os.ReadFile(h.path)
	if !bytes.Equal(before, after) {
		t.Errorf("a refused plan changed the vault file")
	}
	for _, id := range []string{long, list, fine} {
		if r, err := v.Get(id); err != nil || !r.Live() {
			t.Errorf("%s after refused plans: %v, live %v", id, err, r != nil && r.Live())
		}
	}
	// A plan naming an already split memory is refused too.
	if _, err := v.ApplyAtomize(strings.NewReader(writePlan(t, items, good)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ApplyAtomize(strings.NewReader(writePlan(t, items, good)), nil); err == nil || !strings.Contains(err.Error(), "already superseded") {
		t.Errorf("re-applying: %v", err)
	}
}
