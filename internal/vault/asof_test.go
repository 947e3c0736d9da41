package vault

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compartment/compartment/rank"
)

// A replaced fact answers the past: "who led the platform team in March
// 2025" gets the old memory first, marked as true then; "who leads the
// platform team" gets the new one first, and the old one is not in it.
func TestAsOfAnswersWithTheMemoryValidThen(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	fillVault(h, v)
	old := h.store(v, StoreRequest{Text: "Anna Berg leads the platform team.", Discovered: "2024-06-01"})
	next := h.store(v, StoreRequest{Text: "Jonas Ek leads the platform team.", Discovered: "2026-02-01", Supersedes: []string{old.ID}})

	then, err := v.Recall(SearchRequest{Query: "who led the platform team in March 2025?", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(then.Hits) == 0 || then.Hits[0].ID != old.ID {
		t.Fatalf("in March 2025: %v, want %s (Anna, valid then) first", ids(then.Hits), old.ID)
	}
	if then.AsOf != "2025-03-31" || then.AsOfPhrase != "March 2025" {
		t.Errorf("as_of %q from %q, want 2025-03-31 from \"March 2025\"", then.AsOf, then.AsOfPhrase)
	}
	if then.Hits[0].ValidThen == "" {
		t.Error("the replaced memory does not say it was true then")
	}
	for _, hit := range then.Hits[1:] {
		if hit.ValidThen != "" {
			t.Errorf("%s says it was true then: %q", hit.ID, hit.ValidThen)
		}
	}

	now, err := v.Recall(SearchRequest{Query: "who leads the platform team?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(now.Hits) == 0 || now.Hits[0].ID != next.ID || now.AsOf != "" {
		t.Fatalf("now: %v as of %q, want %s (Jonas) first, read now", ids(now.Hits), now.AsOf, next.ID)
	}
	for _, hit := range now.Hits {
		if hit.ID == old.ID {
			t.Error("the replaced memory came back for a question about now")
		}
	}

	// An explicit as_of does the same; a day after the replacement reads
	// the new memory; a time that runs to today reads the vault now.
	given, err := v.Recall(SearchRequest{Query: "who leads the platform team?", AsOf: "2025-03-15"})
	if err != nil || len(given.Hits) == 0 || given.Hits[0].ID != old.ID || given.AsOf != "2025-03-15" {
		t.Fatalf("as_of 2025-03-15: %v as of %q (%v), want %s first", ids(given.Hits), given.AsOf, err, old.ID)
	}
	after, err := v.Recall(SearchRequest{Query: "who leads the platform team?", AsOf: "2026-03-01"})
	if err != nil || len(after.Hits) == 0 || after.Hits[0].ID != next.ID {
		t.Fatalf("as_of 2026-03-01: %v (%v), want %s first", ids(after.Hits), err, next.ID)
	}
	since, err := v.Recall(SearchRequest{Query: "who has led the platform team since March 2025?"})
	if err != nil || since.AsOf != "" || len(since.Hits) == 0 || since.Hits[0].ID != next.ID {
		t.Fatalf("since March 2025: %v as of %q (%v), want the vault read now", ids(since.Hits), since.AsOf, err)
	}
	if _, err := v.Recall(SearchRequest{Query: "platform team", AsOf: "March"}); err == nil {
		t.Error("as_of \"March\" accepted")
	}
	// The replaced memory is out of the index again.
	if _, ok := v.st.index.docOf[old.ID]; ok {
		t.Error("the replaced memory stayed in the index after the search")
	}
}

// "before we moved to Berlin" is dated by the memory of the move.
func TestAsOfBeforeAnEvent(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	fillVault(h, v)
	h.store(v, StoreRequest{Text: "We moved to Berlin in April 2025 for Elin's new job.", Discovered: "2025-04-10"})
	old := h.store(v, StoreRequest{Text: "Our family doctor is Dr. Lind at Vårdcentralen Bromma.", Discovered: "2023-05-01"})
	next := h.store(v, StoreRequest{Text: "Our family doctor is Dr. Weber at Praxis Mitte.", Discovered: "2025-05-20", Supersedes: []string{old.ID}})
	res, err := v.Recall(SearchRequest{Query: "who was our family doctor before we moved to Berlin?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.AsOf != "2025-04-09" || len(res.Hits) == 0 || res.Hits[0].ID != old.ID {
		t.Fatalf("before the move: %v as of %q, want %s first as of 2025-04-09", ids(res.Hits), res.AsOf, old.ID)
	}
	now, err := v.Recall(SearchRequest{Query: "who is our family doctor?"})
	if err != nil || len(now.Hits) == 0 || now.Hits[0].ID != next.ID {
		t.Fatalf("now: %v (%v), want %s first", ids(now.Hits), err, next.ID)
	}
	// No memory of the event: the vault is read now.
	none, err := v.Recall(SearchRequest{Query: "who was our family doctor before we bought the boat?"})
	if err != nil || none.AsOf != "" {
		t.Errorf("an event no memory records gave as_of %q (%v)", none.AsOf, err)
	}
}

// Every default result carries a confidence in [0, 1] and a label.
func TestSearchHitsCarryConfidence(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	fillVault(h, v)
	h.store(v, StoreRequest{Text: "Grafana dashboards live at grafana.kassa.internal."})
	hits, err := v.Search(SearchRequest{Query: "where can I view metrics in Grafana?", Explain: true})
	if err != nil || len(hits) == 0 {
		t.Fatalf("grafana: %v, %v", hits, err)
	}
	for _, hit := range hits {
		if hit.Confidence < 0 || hit.Confidence > 1 || (hit.Match != rank.MatchStrong && hit.Match != rank.MatchLikely && hit.Match != rank.MatchWeak) {
			t.Errorf("%s: confidence %v, match %q", hit.Text, hit.Confidence, hit.Match)
		}
	}
	if !strings.HasPrefix(hits[0].Text, "Grafana") || !hits[0].Explain.Rare {
		t.Errorf("the only memory naming Grafana is not first, or not held by its rare word: %v", ids(hits))
	}
}

func ids(hits []SearchHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID[:8] + " " + h.Text
	}
	return out
}

// fillVault stores thirty memories about other things, so that the words
// of a test's own memories are as rare as in a user's vault (in a vault of
// five, a word two memories hold is not informative).
func fillVault(h *harness, v *Vault) {
	h.t.Helper()
	for i := range 30 {
		h.store(v, StoreRequest{Text: fmt.Sprintf("Shelf %d in the garage holds box number %d of old %s.", i, 100+i,
			[]string{"letters", "tools", "photos", "cables", "books"}[i%5]), Discovered: "2024-11-02"})
	}
	h.store(v, StoreRequest{Text: "The payments team runs the ledger service in Kotlin.", Discovered: "2024-11-02"})
	h.store(v, StoreRequest{Text: "The family car is a Volvo XC40.", Discovered: "2024-11-02"})
}

// At comparable evidence the user's own memory comes before a reference
// fact: both say which PostgreSQL listens on port 5432/tcp, the user's is
// about theirs, and the reference fact's evidence is a little stronger. A
// reference fact with clearly stronger evidence still comes first, and a
// question only a reference fact answers finds it.
func TestOwnMemoriesBeforeReferenceFacts(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	if _, _, err := v.LoadBundledReference(); err != nil {
		t.Fatal(err)
	}
	fillVault(h, v)
	own := h.store(v, StoreRequest{Text: "Our staging postgresql database listens on port 5432/tcp."})
	hits, err := v.Search(SearchRequest{Query: "which postgresql service uses port 5432/tcp?", Explain: true})
	if err != nil || len(hits) < 2 {
		t.Fatalf("postgresql on 5432: %v, %v", ids(hits), err)
	}
	ref := hits[1]
	if hits[0].ID != own.ID || ref.Explain.ReferencePrior != rank.WReference || hits[0].Explain.ReferencePrior != 0 {
		t.Fatalf("postgresql on 5432: %v, want the user's own memory first, then the reference fact", ids(hits))
	}
	if ref.Explain.Unaged <= hits[0].Explain.Unaged || ref.Explain.Unaged >= hits[0].Explain.Unaged/(1+rank.WReference) {
		t.Errorf("the reference fact's evidence %v against the user's %v: the test wants it stronger, but not 1/(1%+v) times",
			ref.Explain.Unaged, hits[0].Explain.Unaged, rank.WReference)
	}
	strong, err := v.Search(SearchRequest{Query: "what is registered to port 5432/tcp?"})
	if err != nil || len(strong) == 0 || strong[0].ID == own.ID || !strings.Contains(strong[0].Text, "registered") {
		t.Errorf("what is registered to port 5432/tcp: %v, %v; want the reference fact first", ids(strong), err)
	}
	onlyRef, err := v.Search(SearchRequest{Query: "what port does ssh use?"})
	if err != nil || len(onlyRef) == 0 || !strings.Contains(strings.ToLower(onlyRef[0].Text), "ssh") {
		t.Errorf("what port does ssh use: %v, %v; want the reference fact", ids(onlyRef), err)
	}
}
