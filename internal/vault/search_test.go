package vault

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func searchIDs(t *testing.T, v *Vault, req SearchRequest) []string {
	t.Helper()
	hits, err := v.Search(req)
	if err != nil {
		t.Fatalf("search %q: %v", req.Query, err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestSearchFindsWhatIsRelevantAndNothingElse(t *testing.T) {
	for _, enc := range []struct {
		name string
		h    *harness
	}{{"literal", newHarness(t, nil)}, {"hybrid", newHarness(t, bowEncoder{})}} {
		t.Run(enc.name, func(t *testing.T) {
			h := enc.h
			v := h.open("user")
			port := h.store(v, StoreRequest{Text: "The staging database runs on port 5433", Tags: []string{"infra"}})
			sha := h.store(v, StoreRequest{Text: "The release was tagged at commit 9f3c2ab71e"})
			for i := 0; i < 30; i++ {
				h.store(v, StoreRequest{Text: fmt.Sprintf("Filler memory number %d about gardening and tomatoes", i)})
			}
			ids := searchIDs(t, v, SearchRequest{Query: "staging database port"})
			if len(ids) == 0 || ids[0] != port.ID {
				t.Errorf("port query: got %v, want %s first", ids, port.ID)
			}
			if ids := searchIDs(t, v, SearchRequest{Query: "9f3c2ab71e"}); len(ids) != 1 || ids[0] != sha.ID {
				t.Errorf("commit query: got %v", ids)
			}
			if ids := searchIDs(t, v, SearchRequest{Query: "quantum chromodynamics lecture"}); len(ids) != 0 {
				t.Errorf("unrelated query returned %d results", len(ids))
			}
			if ids := searchIDs(t, v, SearchRequest{Query: "gardening tomatoes", TopK: 7}); len(ids) != 7 {
				t.Errorf("top_k 7 returned %d", len(ids))
			}
			if _, err := v.Search(SearchRequest{Query: "  "}); !errors.Is(err, ErrInvalid) {
				t.Errorf("empty query: %v", err)
			}
			long := strings.Repeat("database port staging ", 500)
			if _, err := v.Search(SearchRequest{Query: long}); err != nil {
				t.Errorf("10k-character query: %v", err)
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	// A realistic vault: most memories are about something else, so
	// "figures" and "conclusions" are informative words.
	for i := 0; i < 30; i++ {
		h.store(v, StoreRequest{Text: fmt.Sprintf("Unrelated note %d about gardening", i)})
	}
	a := h.store(v, StoreRequest{Text: "Northwind wants figures before conclusions", Namespace: "work", Tags: []string{"northwind"}, Discovered: "2025-03-01"})
	old := h.store(v, StoreRequest{Text: "The figures deadline is Friday", Expires: "2026-12-01"})
	h.now = h.now.Add(24 * time.Hour)
	b := h.store(v, StoreRequest{Text: "Harbour wants figures before conclusions too", Tags: []string{"harbour"}, Quarantined: true})
	sup := h.store(v, StoreRequest{Text: "Figures go in the appendix"})
	h.store(v, StoreRequest{Text: "Figures go first, conclusions after", Supersedes: []string{sup.ID}})

	q := "figures conclusions"
	if ids := searchIDs(t, v, SearchRequest{Query: q, Namespace: "work"}); len(ids) != 1 || ids[0] != a.ID {
		t.Errorf("namespace filter: %v", ids)
	}
	if ids := searchIDs(t, v, SearchRequest{Query: q, Tags: []string{"Harbour"}}); len(ids) != 1 || ids[0] != b.ID {
		t.Errorf("tag filter: %v", ids)
	}
	if ids := searchIDs(t, v, SearchRequest{Query: q, DiscoveredUntil: "2025-12-31"}); len(ids) != 1 || ids[0] != a.ID {
		t.Errorf("discovered filter: %v", ids)
	}
	if ids := searchIDs(t, v, SearchRequest{Query: q, Since: "2026-12-01"}); contains(ids, a.ID) || !contains(ids, b.ID) {
		t.Errorf("since filter: %v", ids)
	}
	if _, err := v.Search(SearchRequest{Query: q, Since: "last week"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad date accepted: %v", err)
	}
	hits, _ := v.Search(SearchRequest{Query: "Harbour figures"})
	if len(hits) == 0 || hits[0].ID != b.ID || hits[0].Warning != QuarantineWarning {
		t.Errorf("quarantined result without a warning: %+v", hits)
	}
	if ids := searchIDs(t, v, SearchRequest{Query: "appendix"}); contains(ids, sup.ID) {
		t.Error("superseded record returned by search")
	}
	if ids := searchIDs(t, v, SearchRequest{Query: "deadline Friday"}); !contains(ids, old.ID) {
		t.Error("memory not yet expired was not found")
	}
	h.now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	if ids := searchIDs(t, v, SearchRequest{Query: "deadline Friday"}); contains(ids, old.ID) {
		t.Error("expired memory returned before the sweep")
	}
	gone, err := v.Expire()
	if err != nil || len(gone) != 1 || gone[0] != old.ID {
		t.Fatalf("expire: %v %v", gone, err)
	}
	if _, err := v.Get(old.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("expired memory still readable: %v", err)
	}
}

func TestSearchExplainAndReopen(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	r := h.store(v, StoreRequest{Text: "Max moved customer records from Airtable to Postgres", Importance: ptr(0.9)})
	v.Close()
	v = h.open("user")
	hits, err := v.Search(SearchRequest{Query: "customer records Postgres", Explain: true})
	if err != nil || len(hits) != 1 || hits[0].ID != r.ID {
		t.Fatalf("after reopen: %+v %v", hits, err)
	}
	ex := hits[0].Explain
	if ex == nil || ex.Cosine <= 0 || ex.PLex <= 0 || ex.RankVec != 1 || ex.RankLex != 1 || len(ex.Terms) == 0 || ex.ImportancePrior <= 0 {
		t.Errorf("explain incomplete: %+v", ex)
	}
}
