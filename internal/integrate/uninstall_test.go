package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTargets: --all takes every installed client that has a file, named
// clients are found by id or alias, an unknown one is refused with the
// known ones, and no name at all says how to name one.
func TestTargets(t *testing.T) {
	e := testEnv(t)
	if got, err := Targets(e, nil, true); err != nil || len(got) != 0 {
		t.Fatalf("nothing installed: %v %v", got, err)
	}
	e.LookPath = func(b string) (string, error) {
		if b == "claude" {
			return "/usr/bin/claude", nil
		}
		return "", errors.New("none")
	}
	got, err := Targets(e, []string{"hermes"}, true)
	if err != nil || len(got) != 2 || got[0].ID != "claude-code" || got[1].ID != "hermes" {
		t.Fatalf("--all hermes: %v %v", got, err)
	}
	if _, err := Targets(e, []string{"claude", "nosuch"}, false); err == nil || !strings.Contains(err.Error(), `unknown client "nosuch"; known clients: `) {
		t.Fatalf("unknown client: %v", err)
	}
	if _, err := Targets(e, nil, false); err == nil || !strings.Contains(err.Error(), "--list or --all") {
		t.Fatalf("no client: %v", err)
	}
	rows := List(e)
	if len(rows) != len(Clients) {
		t.Fatalf("%d rows for %d clients", len(rows), len(Clients))
	}
	for _, r := range rows {
		if r.Client == "claude-code" && (!r.Installed || r.Wired || r.File == "" || r.Format == "") {
			t.Fatalf("claude row: %+v", r)
		}
	}
}

// TestUninstall: what integrate wrote for Claude Code (MCP entry, skill,
// CLAUDE.md block, hook) is taken back newest first; a dry run lists the
// same rows and changes nothing; the user's own CLAUDE.md text survives;
// a second uninstall finds nothing to take back.
func TestUninstall(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("claude-code")
	os.MkdirAll(filepath.Dir(ClaudeMD(e)), 0o700)
	mine := "# My notes\n\nAlways run the linter.\n"
	if err := os.WriteFile(ClaudeMD(e), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := Server{Command: "compartment"}
	if _, err := Wire(e, st, c, srv, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := WireExtras(e, st, c, srv, ExtraOptions{HookCommand: HookCommand(srv, "")}); err != nil {
		t.Fatal(err)
	}
	if !Wired(e, c) || len(st.Items) != 4 {
		t.Fatalf("wired %v, %d items", Wired(e, c), len(st.Items))
	}
	dry, err := Uninstall(e, st, true)
	if err != nil || len(dry) != 4 || !Wired(e, c) {
		t.Fatalf("dry run: %+v %v, still wired %v", dry, err, Wired(e, c))
	}
	if dry[0].Kind != st.Items[3].Kind || dry[3].Kind != st.Items[0].Kind {
		t.Fatalf("not newest first: %+v", dry)
	}
	rows, err := Uninstall(e, st, false)
	if err != nil || len(rows) != 4 {
		t.Fatalf("uninstall: %+v %v", rows, err)
	}
	for i := range rows {
		if rows[i].Action != dry[i].Action || rows[i].Path != dry[i].Path || rows[i].Error != "" {
			t.Errorf("row %d: %+v, dry run said %+v", i, rows[i], dry[i])
		}
	}
	if Wired(e, c) {
		t.Fatal("still wired")
	}
	if b, _ := os.ReadFile(ClaudeMD(e)); string(b) != mine {
		t.Fatalf("CLAUDE.md after uninstall:\n%s", b)
	}
	if cmds, _ := HookCommands(e); len(cmds) != 0 {
		t.Fatalf("hooks left: %q", cmds)
	}
	st2, _ := LoadState(e)
	if rows, err := Uninstall(e, st2, false); err != nil || len(rows) != 0 {
		t.Fatalf("second uninstall: %+v %v", rows, err)
	}
}

// TestConnect: Claude Code gets its MCP entry and every extra step; a
// client whose servers live where compartment cannot edit them gets the
// block to paste and no write; an entry the user wrote stops the wiring
// without a block and takes no extra step.
func TestConnect(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	srv := Server{Command: "compartment"}
	claude, _ := Find("claude-code")
	conn, err := Connect(e, st, claude, srv, ExtraOptions{HookCommand: HookCommand(srv, "")})
	if err != nil || conn.WireFailed || conn.Action != "created" || conn.File != claude.File(e) || conn.Block != "" || len(conn.Steps) != 3 {
		t.Fatalf("claude: %+v %v", conn, err)
	}
	bolt, _ := Find("boltai")
	conn, err = Connect(e, st, bolt, srv, ExtraOptions{})
	if err != nil || conn.Action != "paste" || conn.Block != Block(bolt, srv) || conn.Block == "" {
		t.Fatalf("paste: %+v %v", conn, err)
	}
	e2 := testEnv(t)
	path := claude.File(e2)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"mcpServers": {"compartment": {"command": "/opt/me/bin/compartment", "args": ["serve"]}}}`), 0o600)
	st2, _ := LoadState(e2)
	conn, err = Connect(e2, st2, claude, srv, ExtraOptions{HookCommand: HookCommand(srv, "")})
	if !errors.Is(err, ErrUserEntry) || !conn.WireFailed || conn.Block != "" || conn.Steps != nil || len(st2.Items) != 0 {
		t.Fatalf("user entry: %+v %v, %d items", conn, err, len(st2.Items))
	}
}
