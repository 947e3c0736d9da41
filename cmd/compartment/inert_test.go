package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compartment/compartment/internal/vault"
)

// hostile is a string of everything a terminal acts on: an OSC title set,
// a screen clear, BEL, a carriage return that rewrites the line, DEL, a C1
// CSI, a bidi override, a line separator and a byte that is not UTF-8.
const hostile = "\x1b]0;pwned\x07\x1b[2J\rfake\x7f\u009b31m\u202egnp.exe\u2028\xff"

// rawControl returns the first character in s a terminal would act on,
// other than the newline and tab that lay out the CLI's own lines, or "".
func rawControl(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return s[i : i+1]
		}
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return string(r)
		}
		i += n
	}
	return ""
}

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

// TestTermWriter: a rune split across two writes is kept whole, JSON
// passed through stays the same JSON, and a sequence left incomplete at
// the end is shown escaped.
func TestTermWriter(t *testing.T) {
	var b bytes.Buffer
	w := &termWriter{w: &b}
	s := "ü→\u202e"
	for i := range len(s) {
		io.WriteString(w, s[i:i+1])
	}
	w.flush()
	if b.String() != `ü→\u202e` {
		t.Errorf("split runes: %q", b.String())
	}
	b.Reset()
	in := map[string]string{"t": "del\x7f c1\u0085 bidi\u202e esc\x1b"}
	printJSON(w, in)
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["t"] != in["t"] || rawControl(b.String()) != "" {
		t.Errorf("JSON through the writer: %q (%v)", b.String(), err)
	}
	b.Reset()
	w.Write([]byte("cut \xe2\x86"))
	w.flush()
	if b.String() != `cut \xe2\x86` {
		t.Errorf("incomplete tail: %q", b.String())
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

// FuzzInert: whatever the bytes, neither a single value (inert) nor a
// stream (termWriter, split at any point) puts a raw control character
// out, and a JSON document through the stream stays the same JSON.
func FuzzInert(f *testing.F) {
	for _, s := range []string{hostile, "plain", "ü→\u202e", "\xe2\x86", "a\\x1b", "\x00\x1f\x7f\u0085\u2028"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if bad := rawControl(inert(s)); bad != "" || strings.ContainsAny(inert(s), "\n\t") {
			t.Fatalf("inert(%q) holds %q", s, bad)
		}
		var b bytes.Buffer
		w := &termWriter{w: &b}
		cut = min(max(cut, 0), len(s))
		io.WriteString(w, s[:cut])
		io.WriteString(w, s[cut:])
		w.flush()
		if bad := rawControl(b.String()); bad != "" {
			t.Fatalf("stream of %q holds %q: %q", s, bad, b.String())
		}
		b.Reset()
		printJSON(w, map[string]string{"s": s})
		w.flush()
		var back map[string]string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["s"] != strings.ToValidUTF8(s, "\ufffd") {
			if utf8.ValidString(s) || err != nil {
				t.Fatalf("JSON of %q through the stream: %q %v", s, b.String(), err)
			}
		}
	})
}
