package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestImportSkipsReferenceAndRepeats: `export --plaintext` of a vault
// (with the bundled reference facts `init` loads) imported into another
// vault stores the user's memories only, says what it skipped and
// why, and a second import stores nothing (text and --json).
func TestImportSkipsReferenceAndRepeats(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	h.init()
	h.compartment("store", "Priya's daughter starts school in September", "--source", "from chat")
	h.compartment("store", "The staging database listens on port 5433", "--source", "from chat")
	export := filepath.Join(h.home, "export.jsonl")
	h.compartment("export", "--plaintext", export)

	other := filepath.Join(h.home, "other.vault")
	if out, code := h.run(integratePass+"\n", h.bin, "--vault", other, "init", "--no-app", "--no-integrate", "--no-reference", "--passphrase-stdin"); code != 0 {
		t.Fatalf("init the second vault: %s", out)
	}
	h.env = append(h.env, "COMPARTMENT_PASSPHRASE="+integratePass)
	out := h.compartment("--vault", other, "import", export)
	if !strings.Contains(out, "imported 2 memories") {
		t.Fatalf("import:\n%s", out)
	}
	m := regexp.MustCompile(`skipped (\d+) reference facts: the vault has its own`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("import does not say it skipped the reference facts:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1000 {
		t.Fatalf("only %d reference facts skipped:\n%s", n, out)
	}
	var res struct {
		Stored    int `json:"stored"`
		Present   int `json:"skipped_present"`
		Reference int `json:"skipped_reference"`
	}
	if err := json.Unmarshal([]byte(h.compartment("--vault", other, "import", export, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Stored != 0 || res.Present != 2 || strconv.Itoa(res.Reference) != m[1] {
		t.Fatalf("second import: %+v (want nothing stored, 2 present, %s reference)", res, m[1])
	}
	got := recentTexts(h.withVault(other))
	if len(got) != 2 || got["The staging database listens on port 5433"] == 0 {
		t.Fatalf("the imported vault's own memories: %v", got)
	}
}

// withVault is this home with COMPARTMENT_VAULT set to path.
func (h *homeEnv) withVault(path string) *homeEnv {
	c := *h
	c.env = append(append([]string(nil), h.env...), "COMPARTMENT_VAULT="+path)
	return &c
}
