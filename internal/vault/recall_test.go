package vault

import (
	"testing"

	"github.com/compartment/compartment/embed"
)

// Nothing relevant is hidden because the vault is small, and top_k
// returns exactly k when the scope holds k memories.
func TestRecallInASmallVault(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, enc)
	v := h.open("user")
	want := h.store(v, StoreRequest{Text: "Max decided to move the CRM from Airtable to Postgres."})
	h.store(v, StoreRequest{Text: "The staging database runs on port 5433."})
	hits, err := v.Search(SearchRequest{Query: "what did Max decide about Airtable"})
	if err != nil || len(hits) == 0 || hits[0].ID != want.ID {
		t.Fatalf("two memories, a question about one: %+v, %v", hits, err)
	}
	h.store(v, StoreRequest{Text: "Saga plays the violin on Wednesdays."})
	h.store(v, StoreRequest{Text: "Commit 9f3c2e1a7b4d fixed the login timeout."})
	if hits, err := v.Search(SearchRequest{Query: "violin", TopK: 3}); err != nil || len(hits) != 3 {
		t.Fatalf("top_k 3 over 4 memories: %d results, %v", len(hits), err)
	}
	hits, err = v.Search(SearchRequest{Query: "tell me about 9f3c2e1a7b4d"})
	if err != nil || len(hits) == 0 || hits[0].Text[:6] != "Commit" {
		t.Fatalf("an identifier inside a sentence: %+v, %v", hits, err)
	}
}
