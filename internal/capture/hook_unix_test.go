//go:build unix

package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/integrate"
)

// TestReadMemoryFileAttacks reproduces #27 item 6: each file below was
// read (and stored) by the hook before; now each is refused with its
// reason, and a real memory file still reads.
func TestReadMemoryFileAttacks(t *testing.T) {
	e := testEnv(t)
	secret := writeFile(t, filepath.Join(e.Home, ".aws", "credentials"), "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n")
	project := filepath.Join(e.Home, "work", "app")
	os.MkdirAll(project, 0o700)

	linked := filepath.Join(project, "CLAUDE.md")
	if err := os.Symlink(secret, linked); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(e.Home, "work", "other", "CLAUDE.md")
	os.MkdirAll(filepath.Dir(hard), 0o700)
	if err := os.Link(secret, hard); err != nil {
		t.Fatal(err)
	}
	// A memory directory that is a link to somewhere else.
	os.MkdirAll(filepath.Join(integrate.ClaudeProjects(e), "evil"), 0o700)
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(integrate.ClaudeProjects(e), "evil", "memory")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.Home, ".aws", "keys.md"), "- The root key is AKIAIOSFODNN7EXAMPLE.\n")
	outside := filepath.Join(integrate.ClaudeProjects(e), "evil", "memory", "keys.md")

	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	binary := writeFile(t, filepath.Join(memDir(e), "dump.md"), string(bin))
	nul := writeFile(t, filepath.Join(memDir(e), "nul.md"), "- A fact.\x00- Another.\n")
	large := writeFile(t, filepath.Join(memDir(e), "large.md"), strings.Repeat("- The build takes ten minutes.\n", MaxFileBytes/30+1))
	fifo := filepath.Join(memDir(e), "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(memDir(e), "dir.md")
	os.MkdirAll(dir, 0o700)

	for path, want := range map[string]error{
		linked: ErrOutside, hard: ErrNotRegular, outside: ErrOutside,
		binary: ErrNotText, nul: ErrNotText, large: ErrTooLarge, fifo: ErrNotRegular, dir: ErrNotRegular,
	} {
		done := make(chan struct{})
		var text string
		var err error
		go func() { text, _, err = ReadMemoryFile(e, path); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadMemoryFile(%s) blocked", path)
		}
		if !errors.Is(err, want) || text != "" {
			t.Errorf("ReadMemoryFile(%s) = %q, %v; want %v", filepath.Base(path), text, err, want)
		}
	}

	// What stays allowed: a plain memory file, and one whose whole
	// ~/.claude is a link (a dotfiles manager does that).
	ok := writeFile(t, filepath.Join(memDir(e), "ok.md"), "- We decided to ship on Fridays.\n")
	if text, day, err := ReadMemoryFile(e, ok); err != nil || !strings.Contains(text, "ship on Fridays") || len(day) != 10 {
		t.Fatalf("a plain memory file: %q %q %v", text, day, err)
	}
	e2 := testEnv(t)
	dots := filepath.Join(e2.Home, "dotfiles", "claude")
	writeFile(t, filepath.Join(dots, "projects", "p", "memory", "m.md"), "- The user prefers tabs.\n")
	if err := os.Symlink(dots, filepath.Join(e2.Home, ".claude")); err != nil {
		t.Fatal(err)
	}
	if text, _, err := ReadMemoryFile(e2, filepath.Join(integrate.ClaudeProjects(e2), "p", "memory", "m.md")); err != nil || !strings.Contains(text, "tabs") {
		t.Fatalf("a memory file under a linked ~/.claude: %q %v", text, err)
	}
	// A CLAUDE.md that is a link to a CLAUDE.md kept with the dotfiles.
	kept := writeFile(t, filepath.Join(e2.Home, "dotfiles", "CLAUDE.md"), "- Always answer in British English.\n")
	if err := os.Symlink(kept, filepath.Join(dots, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if text, _, err := ReadMemoryFile(e2, integrate.ClaudeMD(e2)); err != nil || !strings.Contains(text, "British English") {
		t.Fatalf("a CLAUDE.md linked to the dotfiles' CLAUDE.md: %q %v", text, err)
	}
}
