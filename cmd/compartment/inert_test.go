package main

import (
	"encoding/json"
	"github.com/compartment/compartment/internal/render/rendertest"
	"github.com/compartment/compartment/internal/vault"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostile and rawControl are the shared ones of [rendertest].
const hostile = rendertest.Hostile

var rawControl = rendertest.RawControl

// TestCLIOutputIsInert drives the CLI's output paths, results and errors
// alike, with hostile strings in ids, paths, arguments, file content,
// stored text and a pack's version, and greps everything printed (stdout
// and stderr) for a raw control character. The audit found raw escapes
// in an import error quoting the file, not-found messages quoting an id,
// a --vault path, and pack list / pack install printing the version.
// --json output stays valid JSON holding the exact strings.
func TestCLIOutputIsInert(t *testing.T) {
	c := newMemCLI(t)
	id := c.store("the hostile memory " + hostile)
	badImport := filepath.Join(c.dir, "import.jsonl")
	os.WriteFile(badImport, []byte(`{"text": "fine line", "source": "s"}`+"\n"+"not json "+hostile+"\n"), 0o600)
	hostileDir := filepath.Join(c.dir, "dir"+strings.ReplaceAll(hostile, "\xff", ""))
	pack := filepath.Join(c.dir, "ops.mpack")
	c.store("The ops pack fact about port 5433", "--namespace", "ops")
	c.ok("pack", "export", "ops", "-o", pack, "--pack-version", "1.0"+hostile)
	key := strings.TrimSpace(c.ok("pack", "key"))
	c.ok("pack", "trust", key, "the ops team "+hostile)

	runs := [][]string{
		{"get", id},
		{"get", "0123" + hostile},
		{"forget", "ab" + hostile},
		{"recent"},
		{"search", "hostile memory " + hostile},
		{"--vault", filepath.Join(hostileDir, "memory.vault"), "status"},
		{"--vault", filepath.Join(hostileDir, "memory.vault"), "get", id},
		{"import", badImport},
		{"import", badImport + hostile},
		{"store", hostile, "--source", "s", "--namespace", "MAIN" + hostile},
		{"store", "a fact", "--source", "s", "--tag", hostile},
		{"store", "a fact", "--source", "s", "--importance", hostile},
		{"--no-such-flag" + hostile},
		{"pack", "install", pack},
		{"pack", "install", pack},
		{"pack", "list"},
		{"pack", "install", filepath.Join(c.dir, "missing"+hostile+".mpack")},
		{"pack", "trust", "zz" + hostile},
		{"relations", "--entity", hostile},
		{"namespaces"},
		{"get", "0123\nfake: unlocked and exported"},
	}
	for _, args := range runs {
		out, errOut, _ := c.run(args...)
		for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
			if bad := rawControl(s); bad != "" {
				t.Errorf("compartment %q: %s holds a raw %q:\n%s", args, name, bad, s)
			}
			if name == "stderr" && strings.Contains(s, "\nfake:") {
				t.Errorf("compartment %q: an argument's newline started a line of its own:\n%s", args, s)
			}
		}
	}
	if list := c.ok("pack", "list"); !strings.Contains(list, `1.0\x1b]0;pwned\x07`) {
		t.Errorf("pack list does not show the version's escapes: %s", list)
	}
	var rec struct{ Text string }
	out := c.ok("get", id, "--json")
	if rawControl(out) != "" || json.Unmarshal([]byte(out), &rec) != nil {
		t.Fatalf("get --json: not valid, inert JSON: %q", out)
	}
	if want := "the hostile memory " + strings.ReplaceAll(hostile, "\xff", "\ufffd"); rec.Text != want {
		t.Errorf("get --json changed the text:\n got %q\nwant %q", rec.Text, want)
	}
}

// TestCLICallerWithoutGrants: `--caller` with none everywhere is refused
// for status, lock and selftest with the sentence MCP gives
// (vault.CheckReadsSomething, one rule for both), and the vault is not
// locked by the refused call; a caller that reads one namespace keeps all
// three.
func TestCLICallerWithoutGrants(t *testing.T) {
	c := newMemCLI(t)
	id := c.store("A fact the refused caller must not be able to lock away")
	cfg, err := vault.LoadConfig(c.vault)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grants = map[string]map[string]vault.Access{
		"*":      {"*": vault.AccessRW},
		"nobody": {"*": vault.AccessNone},
		"narrow": {"*": vault.AccessNone, "shared": vault.AccessRO},
	}
	if err := cfg.Save(c.vault); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"status", "lock", "selftest"} {
		msg := c.fails("--caller", "nobody", cmd)
		if !strings.Contains(msg, vault.ErrDenied.Error()) || !strings.Contains(msg, "needs read access to at least one") {
			t.Errorf("%s as nobody: %q", cmd, msg)
		}
	}
	unlock := exec.Command(c.bin, "unlock", "--passphrase-stdin")
	unlock.Env, unlock.Stdin = c.env(memCLIPass), strings.NewReader(memCLIPass+"\n")
	if b, err := unlock.CombinedOutput(); err != nil {
		t.Fatalf("unlock: %v %s", err, b)
	}
	c.fails("--caller", "nobody", "lock")
	if out, errOut, code := c.runWith("none", "get", id); code != 0 || !strings.Contains(out, "lock away") {
		t.Fatalf("the refused lock locked the vault: %d %s", code, errOut)
	}
	c.ok("--caller", "narrow", "status")
	c.ok("--caller", "narrow", "lock")
}
