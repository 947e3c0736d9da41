package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/reference"
)

// RunClaims drives the product's own import, search and store: a small
// claims file with the bundled model finds what it asks, and decides
// every store pair right (a changed digit, an added "not" and swapped
// preferences are kept apart; a restatement is a duplicate).
func TestRunClaims(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunClaims(ClaimsOptions{Path: "testdata/claims_tiny.json", Encoder: enc, Verbose: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != 4 || rep.Questions != 3 || rep.Top5.Recall5 != 1 {
		t.Errorf("report %+v: want 4 memories, 3 questions, recall@5 1", rep)
	}
	if rep.Store.Correct != "4/4" || rep.Store.FactsLost != 0 || rep.Store.UpdatesLost != 0 {
		t.Errorf("store %+v: want 4/4, nothing lost", rep.Store)
	}
	if got := rep.ByType["identifier"]; got.Hit1 != 1 {
		t.Errorf("identifier question: %+v, want hit@1 1", got)
	}
	// The vault is made as init makes one, with the reference facts in it.
	facts, err := reference.Facts()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reference != len(facts) {
		t.Errorf("reference facts %d, want the %d the binary ships", rep.Reference, len(facts))
	}
	bare, err := RunClaims(ClaimsOptions{Path: "testdata/claims_tiny.json", Encoder: enc, NoReference: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bare.Reference != 0 || bare.Top5.Recall5 != 1 {
		t.Errorf("without reference facts: %d of them, recall@5 %v; want 0 and 1", bare.Reference, bare.Top5.Recall5)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["unrelated_quiet"] == nil {
		t.Fatalf("JSON %s: %v", buf.String(), err)
	}
	buf.Reset()
	if err := rep.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "store pairs decided correctly") {
		t.Fatalf("text report %q: %v", buf.String(), err)
	}
	if _, err := RunClaims(ClaimsOptions{Path: "testdata/no-such.json"}, nil); err == nil {
		t.Fatal("a missing file must be an error")
	}
}
