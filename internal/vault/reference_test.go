package vault

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/reference"
)

func refFacts(n int, version string) []BulkFact {
	out := make([]BulkFact, n)
	for i := range out {
		out[i] = BulkFact{Text: fmt.Sprintf("Port %d/tcp is registered to the service%d service.", 1000+i, i),
			Source: "Debian netbase " + version + ", /etc/services", Tags: []string{"reference", "ports"}}
	}
	return out
}

func TestLoadReferenceIsOneBatchAndHiddenFromRecent(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	mine := h.store(v, StoreRequest{Text: "The staging database runs on port 5433"})
	st0, _ := v.Status()
	res, err := v.LoadReference(refFacts(300, "6.4"), "v1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 300 || res.Removed != 0 || res.Kept != 0 {
		t.Fatalf("first load: %+v", res)
	}
	st, err := v.Status()
	if err != nil {
		t.Fatal(err)
	}
	// One Update (one append, one fsync): 300 records, an audit entry
	// for each (audit verify names a record without one) and one for the
	// whole load.
	if n := st.AuditEntries - st0.AuditEntries; n != 301 {
		t.Errorf("300 facts wrote %d audit entries, want 301 (one each and one for the load)", n)
	}
	if n := st.JournalFrames - st0.JournalFrames; n != 601 {
		t.Errorf("300 facts wrote %d frames, want 601", n)
	}
	if st.OrganicRecords != 1 || st.ReferenceRecords != 300 {
		t.Errorf("status: organic %d, reference %d; want 1 and 300", st.OrganicRecords, st.ReferenceRecords)
	}
	recent, err := v.Recent(RecentRequest{Limit: math.MaxInt32})
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 1 || recent[0].ID != mine.ID {
		t.Errorf("recent shows %d records, want only the user's own", len(recent))
	}
	all, _ := v.Recent(RecentRequest{Limit: math.MaxInt32, All: true})
	if len(all) != 301 {
		t.Errorf("recent --all shows %d, want 301", len(all))
	}
	audit, _ := v.AuditVerify()
	if !audit.OK {
		t.Errorf("audit chain broken after a reference load: %+v", audit.Breaks)
	}
}

func TestReferenceUpgradeReplacesOnlyReferenceRecords(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	mine := h.store(v, StoreRequest{Text: "Port 1000/tcp at home forwards to the NAS"})
	if _, err := v.LoadReference(refFacts(50, "6.3"), "v1"); err != nil {
		t.Fatal(err)
	}
	// The new pack: the first 10 facts changed their source, 5 are new.
	next := refFacts(55, "6.3")
	for i := range 10 {
		next[i].Source = "Debian netbase 6.4, /etc/services"
	}
	res, err := v.LoadReference(next, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 15 || res.Removed != 10 || res.Kept != 40 {
		t.Fatalf("upgrade: %+v, want added 15, removed 10, kept 40", res)
	}
	again, err := v.LoadReference(next, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Removed != 0 || again.Kept != 55 {
		t.Errorf("reloading the same pack changed something: %+v", again)
	}
	v.Close()
	v = h.open("user")
	got, err := v.Get(mine.ID)
	if err != nil || got.Text != "Port 1000/tcp at home forwards to the NAS" || got.Reference {
		t.Fatalf("the user's memory changed across an upgrade: %+v, %v", got, err)
	}
	st, _ := v.Status()
	if st.ReferenceRecords != 55 || st.OrganicRecords != 1 {
		t.Errorf("after upgrade and reopen: reference %d, organic %d", st.ReferenceRecords, st.OrganicRecords)
	}
}

func TestReferenceSearchSwitches(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	mine := h.store(v, StoreRequest{Text: "My service42 deployment lives on the blue cluster"})
	if _, err := v.LoadReference(refFacts(100, "6.4"), "v1"); err != nil {
		t.Fatal(err)
	}
	q := "which port is service42 registered to"
	if ids := searchIDs(t, v, SearchRequest{Query: q, TopK: 3}); len(ids) == 0 {
		t.Fatal("no results with reference facts on")
	}
	off := false
	for _, id := range searchIDs(t, v, SearchRequest{Query: q, TopK: 10, IncludeReference: &off}) {
		if r, _ := v.Get(id); r.Reference {
			t.Errorf("include_reference=false returned reference fact %s", id)
		}
	}
	only := searchIDs(t, v, SearchRequest{Query: q, TopK: 10, ReferenceOnly: true})
	if len(only) == 0 || contains(only, mine.ID) {
		t.Errorf("reference-only search: %v (the user's memory %s must not be in it)", only, mine.ID)
	}
	v.Config().Settings.IncludeReferenceInSearch = false
	for _, id := range searchIDs(t, v, SearchRequest{Query: q, TopK: 10}) {
		if r, _ := v.Get(id); r.Reference {
			t.Errorf("setting off, but reference fact %s returned", id)
		}
	}
}

// LoadBundledReference puts every fact this binary ships into a real vault
// as a reference memory tagged "reference" and its topic; a second load
// changes nothing.
func TestLoadBundledReference(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	facts, err := reference.Facts()
	if err != nil {
		t.Fatal(err)
	}
	res, digest, err := v.LoadBundledReference()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := reference.Digest(); digest != want || res.Added != len(facts) {
		t.Fatalf("load: added %d with digest %s, want %d and %s", res.Added, digest, len(facts), want)
	}
	hits, err := v.Search(SearchRequest{Query: facts[0].Text, TopK: 1, ReferenceOnly: true})
	if err != nil || len(hits) != 1 || !strings.HasPrefix(hits[0].Text, facts[0].Text) {
		t.Fatalf("search for the first fact: %+v, %v", hits, err)
	}
	if !slices.Contains(hits[0].Tags, "reference") || !slices.Contains(hits[0].Tags, facts[0].Topic) {
		t.Errorf("tags %v: want reference and %q", hits[0].Tags, facts[0].Topic)
	}
	again, _, err := v.LoadBundledReference()
	if err != nil || again.Added != 0 || again.Removed != 0 || again.Kept != len(facts) {
		t.Fatalf("second load: %+v, %v; want every fact kept", again, err)
	}
}
