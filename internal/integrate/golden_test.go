package integrate

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The golden files: testdata/golden/<client>/<case>.before is a file as a
// user might have it, <case>.after what `integrate <client>` makes of it.
// `go test ./internal/integrate -run Golden -update` writes the .after
// files (and any missing .before file, from the templates below); review
// the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden .after files")

var goldenServer = Server{Command: "/usr/local/bin/compartment"}

// beforeCases are the inputs for each format: files with comments, other
// servers, a stale entry of ours, and odd formatting.
func beforeCases(c *Client) map[string]string {
	keys := c.Loc.Keys
	switch c.Format {
	case TOML:
		return map[string]string{
			"empty": "",
			"other-servers": `# Codex settings, hand-written
model = "o4-mini"   # the fast one
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "ghp_x" }

[profiles.deep]
model = "o3"
instructions = """
A multi-line string whose lines look like tables:
[mcp_servers.compartment]
command = "not a real one"
"""
`,
			"stale": `[mcp_servers.compartment]
command = "compartment"
args = ["serve"]   # the old default

[mcp_servers.compartment.env]
COMPARTMENT_VAULT = "/old/path.vault"

# the next table is someone else's
[mcp_servers.other]
command = "other"
`,
			"odd": `[ "mcp_servers" . other ]
command="other"
args=[ "a",
  "b" ]`,
		}
	case YAML:
		k := keys[0]
		if c.Loc.Seq {
			return map[string]string{
				"empty": "",
				"other-servers": `name: Local Assistant   # Continue's own header
version: 1.0.0
schema: v1
models:
  - name: qwen
    provider: ollama
    model: qwen2.5-coder:7b
# servers below
` + k + `:
  - name: github
    command: npx
    args:
      - -y
      - "@modelcontextprotocol/server-github"
# end of servers
`,
				"stale": k + `:
- name: compartment
  command: compartment
  args: [serve]
- name: other
  command: other
`,
				"odd": "schema: v1\n" + k + ":\n    -   name: other\n        command: other\n\n\nrules:\n    - be terse",
			}
		}
		return map[string]string{
			"empty": "",
			"other-servers": `# agent settings
model:
  default: anthropic/claude-sonnet   # chosen in setup
` + k + `:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    # a token comes from the environment
  time:
    command: uvx
    args:
      - mcp-server-time

display:
  compact: true
`,
			"stale": k + `:
  compartment:
    command: compartment
    args:
    - serve
  other:
    command: other
`,
			"null-key":   "memory:\n  provider: builtin\n" + k + ":   # none yet\ntheme: dark\n",
			"empty-flow": "model: default\n" + k + ": {}   # filled in later\ndisplay:\n  compact: true\n",
			"odd":        "theme:    dark\n" + k + ":\n    other:\n        command: other\n\n\n# trailing comment, no newline at the end",
		}
	}
	// JSON and JSON with comments.
	open, close := "", ""
	for i, k := range keys {
		ind := strings.Repeat("  ", i+1)
		open += ind + quoteJSON(k) + ": {\n"
		close = "\n" + ind + "}" + close
	}
	ind := strings.Repeat("  ", len(keys)+1)
	cases := map[string]string{
		"empty": "",
		"other-servers": "{\n  \"theme\": \"dark\",\n" + open +
			ind + "\"github\": {\n" + ind + "  \"command\": \"npx\",\n" + ind + "  \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n" +
			ind + "  \"env\": { \"GITHUB_TOKEN\": \"ghp_x\" }\n" + ind + "}" + close + "\n}\n",
		"no-key": "{\n  \"numStartups\": 3,\n  \"projects\": {\n    \"/home/me/p\": { \"allowedTools\": [] }\n  }\n}\n",
		"stale": "{\n" + open + ind + "\"compartment\": {\n" + ind + "  \"command\": \"compartment\",\n" + ind + "  \"args\": [\"serve\"]\n" + ind + "},\n" +
			ind + "\"other\": { \"command\": \"other\" }" + close + "\n}\n",
		"odd": "{\t\"a\" : 1,\t\"list\":[1,2 ,3],\n\t" + nestInline(keys, `{"x":{"command":"x"}}`) + "}",
	}
	if c.Format == JSONC {
		cases["comments"] = "// settings, edited by hand\n{\n  /* the look */\n  \"theme\": \"dark\", // keep\n" + open +
			ind + "// my servers\n" + ind + "\"github\": { \"command\": \"npx\" }, // trailing comma next\n" + ind + "\"time\": { \"command\": \"uvx\" },\n" +
			strings.TrimPrefix(close, "\n") + ",\n  \"last\": true // no comma after me\n}\n"
	}
	return cases
}

func nestInline(keys []string, v string) string {
	s := v
	for i := len(keys) - 1; i >= 1; i-- {
		s = "{" + quoteJSON(keys[i]) + ": " + s + "}"
	}
	return quoteJSON(keys[0]) + " : " + s
}

func goldenDir(c *Client) string { return filepath.Join("testdata", "golden", c.ID) }

func TestGolden(t *testing.T) {
	for i := range Clients {
		c := &Clients[i]
		dir := goldenDir(c)
		if *update {
			os.MkdirAll(dir, 0o755)
			for name, text := range beforeCases(c) {
				p := filepath.Join(dir, name+".before")
				if _, err := os.Stat(p); os.IsNotExist(err) {
					os.WriteFile(p, []byte(text), 0o644)
				}
			}
		}
		befores, _ := filepath.Glob(filepath.Join(dir, "*.before"))
		if len(befores) < 4 {
			t.Errorf("%s: %d golden cases, want at least 4 (run with -update)", c.ID, len(befores))
		}
		sort.Strings(befores)
		for _, bp := range befores {
			name := c.ID + "/" + strings.TrimSuffix(filepath.Base(bp), ".before")
			t.Run(name, func(t *testing.T) {
				before, err := os.ReadFile(bp)
				if err != nil {
					t.Fatal(err)
				}
				entry := c.Entry(goldenServer.Command, goldenServer.Args(c))
				got, err := Merge(c.Format, before, c.Loc, entry)
				if err != nil {
					t.Fatalf("merge: %v", err)
				}
				ap := strings.TrimSuffix(bp, ".before") + ".after"
				if *update {
					os.WriteFile(ap, got, 0o644)
				}
				want, err := os.ReadFile(ap)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("merge differs from %s:\n--- got\n%s\n--- want\n%s", ap, got, want)
				}
				// Every byte the user wrote is still there, in order
				// (the entry is inserted); a stale entry of ours is
				// replaced, so there only the other lines are checked.
				if old, _ := Lookup(c.Format, before, c.Loc); old == nil {
					if !isSubsequence(userBytes(c, before), got) {
						t.Fatalf("merge lost or moved bytes of the user's file:\n%s", got)
					}
				} else {
					assertKeepsLines(t, before, got)
				}
				// Merging again changes nothing.
				again, err := Merge(c.Format, got, c.Loc, entry)
				if err != nil || !bytes.Equal(again, got) {
					t.Fatalf("second merge changed the file (err %v):\n%s", err, again)
				}
				v, err := Lookup(c.Format, got, c.Loc)
				if err != nil || v == nil {
					t.Fatalf("entry not found after merge: %v", err)
				}
				// Removing it gives back the user's document.
				back, found, err := Remove(c.Format, got, c.Loc)
				if err != nil || !found {
					t.Fatalf("remove: found %v, %v", found, err)
				}
				bv, _ := decode(c.Format, back)
				ov, _ := decode(c.Format, before)
				ov = withEntry(normalize(ov), c.Loc, nil)
				if !reflect.DeepEqual(prune(normalize(bv)), prune(ov)) {
					t.Fatalf("remove did not give back the document:\n%s", back)
				}
			})
		}
	}
}

// userBytes is what a merge must keep of src: all of it, except the `{}`
// or `[]` of an empty YAML flow collection it replaces with a block.
func userBytes(c *Client, src []byte) []byte {
	if c.Format != YAML {
		return src
	}
	d, err := parseYAML(src)
	if err != nil {
		return src
	}
	if at, ok := d.emptyFlow(c.Loc.Keys[0]); ok {
		return splice(src, at, at+2, "")
	}
	return src
}

// isSubsequence says whether b is a with at most two pieces of text
// inserted (our entry, and the comma that joins it to the one before):
// nothing of a is changed, dropped or moved.
func isSubsequence(a, b []byte) bool {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return bytes.Contains(b[p:len(b)-s], a[p:len(a)-s])
}

// assertKeepsLines checks that every non-blank line of before (outside a
// stale entry of ours) appears in after, in order.
func assertKeepsLines(t *testing.T, before, after []byte) {
	t.Helper()
	al := strings.Split(string(after), "\n")
	j := 0
	for _, l := range strings.Split(string(before), "\n") {
		if strings.TrimSpace(l) == "" || strings.Contains(l, "compartment") || strings.Contains(l, "serve") || strings.Contains(l, "COMPARTMENT") {
			continue
		}
		found := false
		for ; j < len(al); j++ {
			if strings.Contains(al[j], strings.TrimRight(strings.TrimSpace(l), ",")) {
				found = true
				j++
				break
			}
		}
		if !found {
			t.Fatalf("line %q of the user's file is gone:\n%s", l, after)
		}
	}
}

func TestTableComplete(t *testing.T) {
	want := []string{"claude-code", "claude-desktop", "hermes", "openclaw", "cursor", "vscode", "cline", "roo-code",
		"kilo-code", "zed", "opencode", "codex", "gemini", "qwen", "copilot", "windsurf", "continue", "goose", "crush",
		"amp", "augment", "oh-my-pi", "lmstudio", "anythingllm", "boltai", "jan", "cherry-studio", "kiro"}
	for _, id := range want {
		if _, ok := Find(id); !ok {
			t.Errorf("client %s missing from the table", id)
		}
	}
	if len(Clients) != len(want) {
		t.Errorf("%d clients in the table, want %d", len(Clients), len(want))
	}
	for _, c := range Clients {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			e := Env{GOOS: goos, Home: "/home/u", Getenv: func(string) string { return "" }}
			if p := c.File(e); p != "" && !strings.HasPrefix(p, "/home/u") {
				t.Errorf("%s on %s: %s is outside the home directory", c.ID, goos, p)
			}
		}
	}
}

func TestEnvOverrides(t *testing.T) {
	env := map[string]string{"HERMES_HOME": "/h", "OPENCLAW_HOME": "/oc", "XDG_CONFIG_HOME": "/x", "APPDATA": `/ad`, "CODEX_HOME": "/cx"}
	e := Env{GOOS: "linux", Home: "/home/u", Getenv: func(k string) string { return env[k] }}
	for id, want := range map[string]string{
		"hermes": "/h/config.yaml", "openclaw": "/oc/.openclaw/openclaw.json", "opencode": "/x/opencode/opencode.json",
		"zed": "/x/zed/settings.json", "codex": "/cx/config.toml", "claude-desktop": "/x/Claude/claude_desktop_config.json",
	} {
		c, _ := Find(id)
		if got := c.File(e); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	e.GOOS = "windows"
	for id, want := range map[string]string{
		"claude-desktop": "/ad/Claude/claude_desktop_config.json", "vscode": "/ad/Code/User/mcp.json", "zed": "/ad/Zed/settings.json",
	} {
		c, _ := Find(id)
		if got := filepath.ToSlash(c.File(e)); got != want {
			t.Errorf("windows %s: %s, want %s", id, got, want)
		}
	}
	e.GOOS = "darwin"
	c, _ := Find("claude-desktop")
	if got := c.File(e); got != "/home/u/Library/Application Support/Claude/claude_desktop_config.json" {
		t.Errorf("darwin claude-desktop: %s", got)
	}
	_ = fmt.Sprint
}

// docs/INTEGRATIONS.md shows the table as the code has it.
func TestIntegrationsDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "INTEGRATIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), DocTable()) {
		t.Fatalf("docs/INTEGRATIONS.md is out of date: its table should be\n%s", DocTable())
	}
}

// A file with CRLF line ends keeps them, in the lines we add too.
func TestCRLF(t *testing.T) {
	for _, id := range []string{"codex", "gemini", "hermes"} {
		c, _ := Find(id)
		src := []byte(strings.ReplaceAll(beforeCases(c)["other-servers"], "\n", "\r\n"))
		out, err := Merge(c.Format, src, c.Loc, c.Entry("/bin/compartment", []string{"serve"}))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) || !isSubsequence(src, out) {
			t.Fatalf("%s: line ends mixed or bytes lost:\n%q", id, out)
		}
		back, found, err := Remove(c.Format, out, c.Loc)
		if err != nil || !found || bytes.Count(back, []byte("\n")) != bytes.Count(back, []byte("\r\n")) {
			t.Fatalf("%s: remove: %v %v %q", id, found, err, back)
		}
	}
}
