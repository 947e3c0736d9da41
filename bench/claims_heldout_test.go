package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// The held-out claims file of session 12 (issue #25) has exactly the
// shape of claims_dev, so tools/claims_eval.py and [RunClaims] read it as
// they read claims_dev, and the sizes the issue asks of a held-out set:
// at least 120 memories, 80 questions in claims_dev's types, 30 unrelated
// questions and a dozen store pairs. Every question's answer is one of its
// memories, every memory is one the import accepts.
func TestClaimsHeldoutShape(t *testing.T) {
	const path = "testdata/claims_heldout_s12.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var data claimsFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&data); err != nil {
		t.Fatalf("%s is not in claims_dev's shape: %v", path, err)
	}
	if len(data.Memories) < 120 || len(data.Questions) < 80 || len(data.Unrelated) < 30 || len(data.StorePairs) < 12 {
		t.Fatalf("%d memories, %d questions, %d unrelated, %d store pairs: want at least 120, 80, 30, 12",
			len(data.Memories), len(data.Questions), len(data.Unrelated), len(data.StorePairs))
	}
	ids := map[string]bool{}
	for _, m := range data.Memories {
		if ids[m.ID] {
			t.Errorf("memory id %s twice", m.ID)
		}
		ids[m.ID] = true
		if m.Text == "" || m.Source == "" || (m.Kind != "fact" && m.Kind != "opinion") {
			t.Errorf("%s: text %q, source %q, kind %q", m.ID, m.Text, m.Source, m.Kind)
		}
		if m.Importance == nil || *m.Importance < 0 || *m.Importance > 1 {
			t.Errorf("%s: importance %v, want one in [0, 1]", m.ID, m.Importance)
		}
		if _, err := time.Parse(time.DateOnly, m.Discovered); err != nil {
			t.Errorf("%s: discovered %q: %v", m.ID, m.Discovered, err)
		}
	}
	types := map[string]bool{"paraphrase": true, "lexical": true, "identifier": true, "temporal": true, "person": true, "preference": true}
	seen := map[string]bool{}
	for _, q := range data.Questions {
		if seen[q.Q] {
			t.Errorf("question %q twice", q.Q)
		}
		seen[q.Q] = true
		if !types[q.Type] || len(q.Expect) == 0 {
			t.Errorf("%q: type %q, expect %v", q.Q, q.Type, q.Expect)
		}
		for _, e := range q.Expect {
			if !ids[e] {
				t.Errorf("%q expects %s, which is no memory", q.Q, e)
			}
		}
	}
	for _, u := range data.Unrelated {
		if seen[u] || u == "" {
			t.Errorf("unrelated question %q empty or twice", u)
		}
		seen[u] = true
	}
	expects := map[string]bool{"distinct": true, "duplicate": true, "opinion_update": true, "opinion_restate": true}
	for _, p := range data.StorePairs {
		if p.First == "" || p.Second == "" || !expects[p.Expect] || (p.Kind != "fact" && p.Kind != "opinion") {
			t.Errorf("store pair %+v", p)
		}
	}
}
