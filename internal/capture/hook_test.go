package capture

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/compartment/compartment/internal/integrate"
)

// testEnv is a user whose home is a temp dir.
func testEnv(t *testing.T) integrate.Env {
	t.Helper()
	return testEnvFor(t.TempDir())
}

func testEnvFor(home string) integrate.Env {
	return integrate.Env{GOOS: runtime.GOOS, Home: home, Getenv: func(string) string { return "" },
		LookPath: func(string) (string, error) { return "", errors.New("none") }}
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func memDir(e integrate.Env) string {
	return filepath.Join(integrate.ClaudeProjects(e), "-home-me-app", "memory")
}

func TestParseInput(t *testing.T) {
	e := testEnv(t)
	mem := filepath.Join(memDir(e), "notes.md")
	in, err := ParseInput([]byte(`{"hook_event_name":"PostToolUse","tool_name":"Write","cwd":"/x","tool_input":{"file_path":"` + mem + `"}}`))
	if err != nil || in.Event == nil || in.Event.MemoryFile(e) != mem {
		t.Fatalf("event: %+v %v", in, err)
	}
	in, _ = ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_input":{"file_path":"` + mem + `"}}`))
	if in.Event.MemoryFile(e) != "" {
		t.Fatal("a PreToolUse event names a memory file")
	}
	in, _ = ParseInput([]byte(`{"hook_event_name":"PostToolUse","cwd":"/work/app","tool_input":{"file_path":"docs/CLAUDE.md"}}`))
	if got := in.Event.MemoryFile(e); got != "/work/app/docs/CLAUDE.md" {
		t.Fatalf("relative CLAUDE.md: %q", got)
	}
	in, err = ParseInput([]byte(`{"assistant":"Shall I?","user":"yes"}`))
	if err != nil || in.Turn == nil || in.Turn.User != "yes" {
		t.Fatalf("turn: %+v %v", in, err)
	}
	for _, bad := range []string{"", "not json", "[1,2]", `{"hook_event_name":7}`} {
		if _, err := ParseInput([]byte(bad)); err == nil {
			t.Errorf("ParseInput(%q) accepted", bad)
		}
	}
}

func TestIsMemoryFile(t *testing.T) {
	e := testEnv(t)
	p := integrate.ClaudeProjects(e)
	for path, want := range map[string]bool{
		"/work/app/CLAUDE.md":                                     true,
		"/work/app/CLAUDE.local.md":                               true,
		filepath.Join(p, "x", "memory", "a.md"):                   true,
		filepath.Join(p, "x", "memory", "sub", "a.md"):            true,
		filepath.Join(p, "x", "memory", "a.txt"):                  false,
		filepath.Join(p, "x", "notes", "a.md"):                    false,
		filepath.Join(p, "memory", "a.md"):                        false,
		filepath.Join(p, "x", "memory", "..", "..", "..", "a.md"): false,
		"/work/app/README.md":                                     false,
		"CLAUDE.md":                                               false, // relative
		"":                                                        false,
	} {
		if got := IsMemoryFile(e, path); got != want {
			t.Errorf("IsMemoryFile(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestReadFilesSkips: import-claude skips a refused file with its reason
// and reads the rest.
func TestReadFilesSkips(t *testing.T) {
	e := testEnv(t)
	good := writeFile(t, filepath.Join(memDir(e), "a.md"), "- Staging listens on port 5433.\n")
	bad := writeFile(t, filepath.Join(memDir(e), "b.md"), "\xff\xfe binary")
	files, skipped, err := ReadFiles(e, MemoryFiles(e, nil))
	if err != nil || len(files) != 1 || files[0].Path != good || len(files[0].Memories) != 1 {
		t.Fatalf("files %+v, err %v", files, err)
	}
	if len(skipped) != 1 || skipped[0].Path != bad || skipped[0].Reason != ErrNotText.Error() {
		t.Fatalf("skipped %+v", skipped)
	}
}

// TestFileControlCharacters: a memory file's escapes are not stored.
func TestFileControlCharacters(t *testing.T) {
	got := File("- Deploys go \x1b[8mthrough\x1b[0m the release\u202e branch.\n", MaxChars)
	if len(got) != 1 || got[0].Text != "Deploys go through the release branch." {
		t.Fatalf("%+v", got)
	}
}
