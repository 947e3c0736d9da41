package vault

import (
	"testing"

	"github.com/compartment/compartment/rank"
)

// The vault gives the search each result's own words, without the
// provenance clause: a memory about the person a question names that
// holds nothing of the time it asks for is weak, although its stamp holds
// a date; one that says when is not.
func TestSearchChecksTheAskedKindOfAnswer(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	fillVault(h, v)
	work := h.store(v, StoreRequest{Text: "Henrik Lindqvist, Marcus's younger brother, is an electrician in Oslo.", Discovered: "2025-08-30"})
	hits, err := v.Search(SearchRequest{Query: "When is Henrik's birthday?", Explain: true})
	if err != nil || len(hits) == 0 || hits[0].ID != work.ID {
		t.Fatalf("%v, %v: want the memory about Henrik first", ids(hits), err)
	}
	if x := hits[0].Explain; x == nil || x.Asks != "time" || !x.Lacks || hits[0].Match != rank.MatchWeak {
		t.Errorf("the memory about Henrik's work is %s (%+v), want weak, lacking a time", hits[0].Match, x)
	}
	when := h.store(v, StoreRequest{Text: "Henrik Lindqvist, Marcus's younger brother, has his birthday on 2 April.", Discovered: "2025-08-30"})
	hits, err = v.Search(SearchRequest{Query: "When is Henrik's birthday?", Explain: true})
	if err != nil || len(hits) == 0 {
		t.Fatalf("%v, %v", ids(hits), err)
	}
	found := false
	for _, hit := range hits {
		if hit.ID != when.ID {
			continue
		}
		found = true
		if hit.Explain.Lacks || hit.Match == rank.MatchWeak {
			t.Errorf("the memory saying when is %s (lacks %v)", hit.Match, hit.Explain.Lacks)
		}
	}
	if !found {
		t.Errorf("%v: want the memory saying when among them", ids(hits))
	}
}
