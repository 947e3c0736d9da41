package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/reference"
	"github.com/compartment/compartment/internal/vault"
)

// TestInitSeedsReferenceFacts runs init as a user would and checks the
// reference facts end to end: counted apart, hidden from recent, switched
// out of search by the setting, searchable alone, checked by selftest.
func TestInitSeedsReferenceFacts(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	fresh := filepath.Join(c.dir, "seeded.vault")
	cmd := exec.Command(c.bin, "--vault", fresh, "init", "--no-app", "--passphrase-stdin")
	cmd.Env = append(c.env(memCLIPass), "COMPARTMENT_VAULT="+fresh)
	cmd.Stdin = strings.NewReader(memCLIPass + "\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Reference facts: ") {
		t.Fatalf("init: %v\n%s", err, out)
	}
	in := func(args ...string) []string { return append([]string{"--vault", fresh}, args...) }
	c.ok(in("unlock")...) // init used the real Argon2id cost: pay it once
	var st vault.Status
	c.json(&st, in("status")...)
	facts, _ := reference.Facts()
	if st.OrganicRecords != 0 || st.ReferenceRecords != len(facts) || st.ReferenceRecords < 6000 {
		t.Fatalf("status after init: organic %d, reference %d (the pack has %d)", st.OrganicRecords, st.ReferenceRecords, len(facts))
	}
	if out := c.ok(in("recent")...); strings.Contains(out, "Debian") {
		t.Errorf("recent shows reference facts:\n%s", out)
	}
	q := "which port does ssh use"
	var res struct{ Results []vault.SearchHit }
	c.json(&res, in("search", q, "--top-k", "3")...)
	if len(res.Results) == 0 || !strings.Contains(res.Results[0].Text, "22/tcp") {
		t.Fatalf("search %q: %+v", q, res.Results)
	}
	mine := c.store("The office wifi password is in the blue binder")
	c.json(&res, in("search", "office wifi password", "--reference-only")...)
	for _, h := range res.Results {
		if h.ID == mine {
			t.Error("--reference-only returned the user's own memory")
		}
	}
	c.ok(in("config", "set", "include_reference_in_search", "false")...)
	for _, q := range reference.Questions {
		c.json(&res, in("search", q.Ask)...)
		if len(res.Results) != 0 {
			t.Errorf("reference off: %q returned %d results", q.Ask, len(res.Results))
		}
	}
	var rep struct {
		Checks []struct {
			Name string
			OK   bool
		}
		Hits int
	}
	out, _, _ := c.run(in("selftest", "--json")...)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("selftest --json: %v\n%s", err, out)
	}
	for _, ch := range rep.Checks {
		if !ch.OK && ch.Name != "reference questions" {
			t.Errorf("selftest check %s failed", ch.Name)
		}
	}
	if rep.Hits < len(reference.Questions)-1 {
		t.Errorf("selftest: %d of %d questions hit", rep.Hits, len(reference.Questions))
	}

	// A second vault made with --no-reference starts empty.
	empty := filepath.Join(c.dir, "empty.vault")
	cmd = exec.Command(c.bin, "--vault", empty, "init", "--no-app", "--passphrase-stdin", "--no-reference")
	cmd.Env = c.env(memCLIPass)
	cmd.Stdin = strings.NewReader(memCLIPass + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init --no-reference: %v\n%s", err, out)
	}
	c.json(&st, "--vault", empty, "status")
	if st.Live != 0 {
		t.Errorf("init --no-reference holds %d memories", st.Live)
	}
	// reference update loads them into it, and a second update changes nothing.
	if out := c.ok("--vault", empty, "reference", "update"); !strings.Contains(out, "added") {
		t.Errorf("reference update: %s", out)
	}
	if out := c.ok("--vault", empty, "reference", "update"); !strings.Contains(out, " 0 added, 0 removed") {
		t.Errorf("second reference update: %s", out)
	}
}
