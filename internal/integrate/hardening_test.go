package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// #27 item 5: a symlinked client configuration is written through. The
// target gets our entry, the link stays a link, and uninstall gives the
// target back byte for byte with the link still in place.
func TestWireThroughSymlink(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("codex")
	link := c.File(e)
	dotfiles := filepath.Join(e.Home, "dotfiles")
	os.MkdirAll(dotfiles, 0o700)
	os.MkdirAll(filepath.Dir(link), 0o700)
	target := filepath.Join(dotfiles, "codex.toml")
	orig := "model = \"o3\"\n"
	os.WriteFile(target, []byte(orig), 0o600)
	if err := os.Symlink("../dotfiles/codex.toml", link); err != nil {
		t.Fatal(err)
	}
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{}); err != nil {
		t.Fatal(err)
	}
	assertLink(t, link, "../dotfiles/codex.toml")
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "[mcp_servers.compartment]") || !strings.HasPrefix(string(b), orig) {
		t.Fatalf("the target does not hold our entry:\n%s", b)
	}
	st2, _ := LoadState(e)
	if ch, err := Undo(e, st2, st2.Find(KindMCP, link), false); err != nil || ch.Action != "restored" {
		t.Fatalf("uninstall: %+v %v", ch, err)
	}
	assertLink(t, link, "../dotfiles/codex.toml")
	if b, _ := os.ReadFile(target); string(b) != orig {
		t.Fatalf("after uninstall the target holds %q", b)
	}
}

// A dangling link (a dotfiles checkout not yet filled in) gets its target
// created; uninstall removes the target and leaves the link.
func TestWireDanglingSymlink(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("gemini")
	link := c.File(e)
	os.MkdirAll(filepath.Dir(link), 0o700)
	target := filepath.Join(e.Home, "gemini-settings.json")
	os.Symlink(target, link)
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{}); err != nil {
		t.Fatal(err)
	}
	assertLink(t, link, target)
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("target not created: %v", err)
	}
	if ch, err := Undo(e, st, st.Find(KindMCP, link), false); err != nil || ch.Action != "removed" {
		t.Fatalf("uninstall: %+v %v", ch, err)
	}
	assertLink(t, link, target)
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("target still there: %v", err)
	}
}

func assertLink(t *testing.T, link, want string) {
	t.Helper()
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link (%v, %v)", link, fi.Mode(), err)
	}
	if got, _ := os.Readlink(link); got != want {
		t.Fatalf("link points at %q, want %q", got, want)
	}
}

// A write-protected configuration (0444) is refused with a sentence that
// says what to do, and its bytes stay as they were. The mode bits decide,
// not EACCES: the tests run as root here, and a rename over a read-only
// file succeeds for anyone who may write the directory.
func TestWireReadOnly(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("hermes")
	path := c.File(e)
	os.MkdirAll(filepath.Dir(path), 0o700)
	orig := "model: hermes-4\n"
	os.WriteFile(path, []byte(orig), 0o444)
	_, err := Wire(e, st, c, Server{Command: "compartment"}, Options{})
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("wire of a 0444 file: %v, want ErrReadOnly", err)
	}
	for _, want := range []string{"write-protected", "0444", "chmod u+w " + path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("the file changed: %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
		t.Fatalf("mode changed to %v", fi.Mode().Perm())
	}
	if len(st.Items) != 0 {
		t.Fatalf("a refused write was recorded: %+v", st.Items)
	}
	// Made writable, wired, then protected again: uninstall refuses too.
	os.Chmod(path, 0o600)
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	wired, _ := os.ReadFile(path)
	if _, err := Undo(e, st, st.Find(KindMCP, path), false); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("uninstall of a 0444 file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(wired) {
		t.Fatal("uninstall changed a write-protected file")
	}
}

// A `compartment` entry the user wrote (their own binary, vault and
// environment) is never replaced silently: Wire refuses, says how it
// differs, and with Force replaces it; uninstall then puts theirs back,
// also when the file changed in between.
func TestWireKeepsUserEntry(t *testing.T) {
	e := testEnv(t)
	c, _ := Find("claude-code")
	path := c.File(e)
	user := `{
  "theme": "dark",
  "mcpServers": {
    "compartment": {
      "command": "/opt/me/bin/compartment",
      "args": ["--vault", "/data/work.vault", "serve"],
      "env": {"COMPARTMENT_EMBED_DAEMON": "0"}
    }
  }
}
`
	os.WriteFile(path, []byte(user), 0o600)
	st, _ := LoadState(e)
	_, err := Wire(e, st, c, Server{Command: "compartment"}, Options{})
	var ue *UserEntryError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUserEntry) {
		t.Fatalf("wire over the user's entry: %v, want a UserEntryError", err)
	}
	msg := err.Error()
	for _, want := range []string{"--force", `command: yours "/opt/me/bin/compartment", ours "compartment"`, "yours has env", "/data/work.vault"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not say %q", msg, want)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != user {
		t.Fatal("the user's file changed without --force")
	}
	// A dry run says the same.
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{DryRun: true}); !errors.Is(err, ErrUserEntry) {
		t.Fatalf("dry run: %v", err)
	}
	// --force replaces it, and a second run sees our own entry.
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if ch, err := Wire(e, st, c, Server{Command: "compartment", Caller: "me"}, Options{}); err != nil || ch.Action != "updated" {
		t.Fatalf("re-wiring our own entry: %+v %v", ch, err)
	}
	// The user edits another part of the file; uninstall takes our entry
	// out and puts theirs back rather than leaving none.
	cur, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(cur), `"dark"`, `"light"`, 1)), 0o600)
	st2, _ := LoadState(e)
	if _, err := Undo(e, st2, st2.Find(KindMCP, path), false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got, _ := Lookup(JSON, b, c.Loc)
	want, _ := Lookup(JSON, []byte(user), c.Loc)
	if got == nil || compact(got) != compact(want) {
		t.Fatalf("after uninstall the entry is %v, want the user's %v", got, want)
	}
	if !strings.Contains(string(b), `"light"`) {
		t.Fatal("uninstall lost the user's later edit")
	}
}

// Uninstall of a file still as we left it restores the user's entry from
// the backup, byte for byte.
func TestForceThenUninstallRestoresBytes(t *testing.T) {
	e := testEnv(t)
	c, _ := Find("hermes")
	path := c.File(e)
	os.MkdirAll(filepath.Dir(path), 0o700)
	user := "mcp_servers:\n  compartment:\n    command: /home/me/compartment\n    args: [serve]\n"
	os.WriteFile(path, []byte(user), 0o600)
	st, _ := LoadState(e)
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{}); !errors.Is(err, ErrUserEntry) {
		t.Fatalf("wire: %v", err)
	}
	if _, err := Wire(e, st, c, Server{Command: "compartment"}, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if ch, err := Undo(e, st, st.Find(KindMCP, path), false); err != nil || ch.Action != "restored" {
		t.Fatalf("undo: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(path); string(b) != user {
		t.Fatalf("restored %q", b)
	}
}
