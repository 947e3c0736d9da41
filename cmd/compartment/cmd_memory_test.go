package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// These tests run the real binary against a vault in a temp dir, as a user
// or a script would.

const memCLIPass = "correct horse battery staple"

// memCLI is a built binary and a vault for it.
type memCLI struct {
	t     *testing.T
	bin   string
	dir   string
	vault string
}

func newMemCLI(t *testing.T) *memCLI {
	t.Helper()
	dir := t.TempDir()
	c := &memCLI{t: t, bin: builtBinary(t), dir: dir, vault: filepath.Join(dir, "memory.vault")}
	v, err := vault.Create(c.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(memCLIPass)},
		KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	return c
}

// run runs the binary with args and returns stdout, stderr and the exit
// status. pass overrides the passphrase ("" keeps the right one).
func (c *memCLI) runWith(pass string, args ...string) (string, string, int) {
	c.t.Helper()
	if pass == "" {
		pass = memCLIPass
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env = c.env(pass)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// env is the environment of a command run with passphrase pass.
func (c *memCLI) env(pass string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(c.dir, "home"),
		"COMPARTMENT_VAULT=" + c.vault,
		"COMPARTMENT_PASSPHRASE=" + pass,
		"COMPARTMENT_UNLOCK_DELAY_MS=100",
		"COMPARTMENT_SESSION_DIR=" + filepath.Join(c.dir, "session"),
		"COMPARTMENT_BOOT_SECRET_DIR=" + filepath.Join(c.dir, "boot"),
		"COMPARTMENT_EMBED_DAEMON=0",
	}
}

func (c *memCLI) run(args ...string) (string, string, int) {
	c.t.Helper()
	return c.runWith("", args...)
}

// ok runs a command that must succeed and returns its stdout.
func (c *memCLI) ok(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("compartment %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// json runs a command with --json and decodes its output.
func (c *memCLI) json(into any, args ...string) {
	c.t.Helper()
	out := c.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), into); err != nil {
		c.t.Fatalf("compartment %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fails runs a command that must fail and returns its stderr.
func (c *memCLI) fails(args ...string) string {
	c.t.Helper()
	_, errOut, code := c.run(args...)
	if code == 0 {
		c.t.Fatalf("compartment %s should have failed", strings.Join(args, " "))
	}
	return errOut
}

func (c *memCLI) store(text string, extra ...string) string {
	c.t.Helper()
	var r vault.StoreResult
	c.json(&r, append([]string{"store", text, "--source", "from chat"}, extra...)...)
	if !r.Stored {
		c.t.Fatalf("store %q: %+v", text, r)
	}
	return r.ID
}

// importLines feeds JSONL to `compartment import`.
func (c *memCLI) importLines(lines ...string) {
	c.t.Helper()
	path := filepath.Join(c.dir, "import.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		c.t.Fatal(err)
	}
	c.ok("import", path)
}

func TestMemoryCommands(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	t.Run("recent", func(t *testing.T) { c.t = t; testRecentCmd(c) })
	t.Run("namespaces", func(t *testing.T) { c.t = t; testNamespacesCmd(c) })
	t.Run("link/relations/unlink", func(t *testing.T) { c.t = t; testRelationCmds(c) })
	t.Run("expire", func(t *testing.T) { c.t = t; testExpireCmd(c) })
	t.Run("config", func(t *testing.T) { c.t = t; testConfigCmds(c) })
	t.Run("audit", func(t *testing.T) { c.t = t; testAuditCmds(c) })
	t.Run("wrong passphrase", func(t *testing.T) {
		c.t = t
		if _, errOut, code := c.runWith("not the passphrase", "recent"); code == 0 || !strings.Contains(errOut, "passphrase") {
			t.Errorf("wrong passphrase: exit %d, %q", code, errOut)
		}
	})
}

func testRecentCmd(c *memCLI) {
	t := c.t
	// A reference fact the way the vault gets them (import skips them:
	// the vault has its own).
	v, err := vault.Open(c.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(memCLIPass)}, Caller: "user"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.LoadReference([]vault.BulkFact{{Text: "TCP port 22 is SSH", Source: "reference pack"}}, "test"); err != nil {
		t.Fatal(err)
	}
	v.Close()
	ids := []string{c.store("The staging database listens on port 5433"), c.store("Priya prefers reviews before noon"),
		c.store("The NAS lives at 192.168.1.20", "--namespace", "home")}
	var recs []vault.Record
	c.json(&recs, "recent", "--limit", "2")
	if len(recs) != 2 || recs[0].ID != ids[2] || recs[1].ID != ids[1] {
		t.Fatalf("recent --limit 2 (newest first): %+v", recs)
	}
	c.json(&recs, "recent")
	if len(recs) != 3 {
		t.Errorf("recent hides reference facts: got %d", len(recs))
	}
	c.json(&recs, "recent", "--all")
	if len(recs) != 4 || !recs[3].Reference {
		t.Errorf("recent --all shows reference facts: %+v", recs)
	}
	c.json(&recs, "recent", "--namespace", "home")
	if len(recs) != 1 || recs[0].ID != ids[2] {
		t.Errorf("recent --namespace home: %+v", recs)
	}
	out := c.ok("recent", "--limit", "1")
	if !strings.Contains(out, ids[2][:12]) || !strings.Contains(out, "192.168.1.20 [from chat, ") {
		t.Errorf("recent text output: %q", out)
	}
	c.fails("recent", "--limit", "0")
}

func testNamespacesCmd(c *memCLI) {
	t := c.t
	var ns []vault.NamespaceInfo
	c.json(&ns, "namespaces")
	got := map[string]int{}
	for _, n := range ns {
		got[n.Name] = n.Records
		if n.Access != vault.AccessRW {
			t.Errorf("%s: access %s", n.Name, n.Access)
		}
	}
	if got["main"] != 3 || got["home"] != 1 || len(got) != 2 {
		t.Errorf("namespaces: %v", got)
	}
	if out := c.ok("namespaces"); !strings.Contains(out, "home") || !strings.Contains(out, "NAMESPACE") {
		t.Errorf("namespaces text: %q", out)
	}
}

func testRelationCmds(c *memCLI) {
	t := c.t
	src := c.store("Max works at Northwind as head of finance")
	var works, lives vault.Relation
	c.json(&works, "link", "Max", "works_at", "Northwind", "--src", src[:8], "--from", "2026-01-01", "--to", "2026-06-30")
	c.json(&lives, "link", "Max", "lives_in", "Lisbon")
	if works.Src != src || works.Namespace != "main" || works.From != "2026-01-01" {
		t.Errorf("link: %+v", works)
	}
	var res vault.RelationResult
	c.json(&res, "relations", "--entity", "max")
	if len(res.Relations) != 2 || res.Truncated {
		t.Errorf("relations --entity max: %+v", res)
	}
	c.json(&res, "relations", "--object", "northwind", "--as-of", "2026-03-01")
	if len(res.Relations) != 1 || res.Relations[0].ID != works.ID {
		t.Errorf("relations --object --as-of inside: %+v", res)
	}
	c.json(&res, "relations", "--entity", "Max", "--as-of", "2026-08-01")
	if len(res.Relations) != 1 || res.Relations[0].ID != lives.ID {
		t.Errorf("relations --as-of after the window: %+v", res)
	}
	c.json(&res, "relations", "--limit", "1")
	if len(res.Relations) != 1 || !res.Truncated {
		t.Errorf("relations --limit 1: %+v", res)
	}
	if msg := c.fails("relations", "--as-of", "soon"); !strings.Contains(msg, "as_of") {
		t.Errorf("bad --as-of: %s", msg)
	}
	if out := c.ok("relations", "--predicate", "WORKS_AT"); !strings.Contains(out, "Max works_at Northwind  [2026-01-01 to 2026-06-30]") {
		t.Errorf("relations text: %q", out)
	}
	c.ok("unlink", works.ID)
	c.json(&res, "relations", "--entity", "max")
	if len(res.Relations) != 1 {
		t.Errorf("after unlink: %+v", res)
	}
	if msg := c.fails("unlink", works.ID); !strings.Contains(msg, "not found") {
		t.Errorf("unlink twice: %s", msg)
	}
	c.fails("link", "Max", "", "Lisbon")
}

func testExpireCmd(c *memCLI) {
	t := c.t
	keep := c.store("The sale price is gone for good", "--expires", "1y")
	// import keeps an expiry that is already past (a store refuses one);
	// the next command to open the vault sweeps it, here `expire` itself.
	c.importLines(`{"id":"0123456789abcdef0123456789abcdef","text":"The summer sale ended","source":"web search","expires":"2020-01-01"}`)
	var r struct {
		Expired []string `json:"expired"`
		Count   int      `json:"count"`
	}
	c.json(&r, "expire")
	if r.Count != 1 || len(r.Expired) != 1 || r.Expired[0] != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("expire: %+v", r)
	}
	c.fails("get", "0123456789abcdef0123456789abcdef")
	c.ok("get", keep)
	c.json(&r, "expire")
	if r.Count != 0 || r.Expired == nil {
		t.Errorf("second expire: %+v", r)
	}
	if out := c.ok("expire"); !strings.Contains(out, "removed 0 expired memories") {
		t.Errorf("expire text: %q", out)
	}
}

func testConfigCmds(c *memCLI) {
	t := c.t
	if out := strings.TrimSpace(c.ok("config", "get", "max_memory_chars")); out != "200" {
		t.Errorf("config get max_memory_chars = %q", out)
	}
	c.ok("config", "set", "max_memory_chars", "40")
	if msg := c.fails("store", "A claim that is clearly longer than forty characters", "--source", "from chat"); !strings.Contains(msg, "40") {
		t.Errorf("the new limit is not in force: %s", msg)
	}
	c.ok("config", "set", "max_memory_chars", "200")
	if msg := c.fails("config", "set", "--", "max_memory_chars", "-1"); !strings.Contains(msg, "max_memory_chars") {
		t.Errorf("invalid value: %s", msg)
	}
	if msg := c.fails("config", "set", "opinion_update_threshold", "1.5"); !strings.Contains(msg, "0 to 1") {
		t.Errorf("out of range: %s", msg)
	}
	if msg := c.fails("config", "set", "no_such_setting", "1"); !strings.Contains(msg, "unlock_tool_enabled") {
		t.Errorf("unknown setting should list the known ones: %s", msg)
	}
	c.ok("config", "set", "unlock_tool_enabled", "true")
	var all map[string]any
	c.json(&all, "config", "get")
	if all["unlock_tool_enabled"] != true || all["max_memory_chars"] != float64(200) {
		t.Errorf("config get --json: %v", all)
	}
	cfg, err := vault.LoadConfig(c.vault)
	if err != nil || !cfg.Settings.UnlockToolEnabled {
		t.Errorf("the settings file was not written: %+v, %v", cfg, err)
	}
	other := *c
	other.vault = filepath.Join(c.dir, "nowhere.vault")
	if msg := other.fails("config", "set", "max_memory_chars", "10"); !strings.Contains(msg, "no vault") {
		t.Errorf("config of a missing vault: %s", msg)
	}
}

// auditKeeper receives the replay when the test opens the file directly.
type auditKeeper struct{}

func (auditKeeper) Reset()                      {}
func (auditKeeper) Apply(vaultfmt.Change) error { return nil }

func testAuditCmds(c *memCLI) {
	t := c.t
	if out := c.ok("audit", "verify"); !strings.Contains(out, "intact") {
		t.Errorf("audit verify: %q", out)
	}
	// Remove the first audit entry behind the vault's back. Its item id is
	// the audit prefix and the big-endian sequence number (internal/vault
	// audit.go).
	f, err := vaultfmt.Open(c.vault, vaultfmt.Unlock{Passphrase: []byte(memCLIPass)}, auditKeeper{})
	if err != nil {
		t.Fatal(err)
	}
	var id vaultfmt.ID
	copy(id[:8], "\xffaudit\x00\x00")
	binary.BigEndian.PutUint64(id[8:], 1)
	if err := f.Append([]vaultfmt.Change{{Op: vaultfmt.OpDelete, Item: vaultfmt.Item{ID: id}}}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	out, errOut, code := c.run("audit", "verify")
	if code != 1 || !strings.Contains(out, "entry 1: entry missing") || !strings.Contains(errOut, "audit repair --yes") {
		t.Fatalf("audit verify after tampering: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep vault.AuditReport
	if err := json.Unmarshal([]byte(mustStdout(c.run("audit", "verify", "--json"))), &rep); err != nil || rep.OK || len(rep.Breaks) == 0 {
		t.Errorf("audit verify --json: %+v, %v", rep, err)
	}
	if msg := c.fails("audit", "repair"); !strings.Contains(msg, "--yes") {
		t.Errorf("repair without --yes: %s", msg)
	}
	c.fails("audit", "verify") // still broken: nothing was changed
	var fixed struct {
		Repaired bool              `json:"repaired"`
		Report   vault.AuditReport `json:"report"`
	}
	c.json(&fixed, "audit", "repair", "--yes")
	if !fixed.Repaired || !fixed.Report.OK || len(fixed.Report.Acknowledged) == 0 {
		t.Errorf("repair --yes: %+v", fixed)
	}
	if out := c.ok("audit", "verify"); !strings.Contains(out, "acknowledged   entry 1") || !strings.Contains(out, "intact") {
		t.Errorf("verify after repair: %q", out)
	}
	c.store("A write after the repair extends the chain")
	c.ok("audit", "verify")
}

func mustStdout(out, _ string, _ int) string { return out }

// --explain says which phrases of the question the literal channel left
// out as framing, in text and JSON.
func TestSearchExplainShowsFraming(t *testing.T) {
	c := newMemCLI(t)
	c.store("Bought a stand mixer for the kitchen")
	c.store("The offsite moved to Lisbon")
	out := c.ok("search", "which mixer did I buy two weeks ago", "--top-k", "1", "--explain")
	if !strings.Contains(out, "stand mixer") || !strings.Contains(out, `(without "which", "did", "two weeks ago")`) {
		t.Errorf("explain does not show the framing left out:\n%s", out)
	}
	var res struct {
		Results []struct {
			Explain struct {
				Framing []string `json:"framing"`
			} `json:"explain"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(c.ok("search", "which mixer did I buy two weeks ago", "--top-k", "1", "--explain", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !slices.Equal(res.Results[0].Explain.Framing, []string{"which", "did", "two weeks ago"}) {
		t.Errorf("JSON explain: %+v, want framing [which, did, two weeks ago]", res)
	}
}
