package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/compartment/compartment/internal/integrate"
)

// MaxHookInput bounds what the hook reads from stdin.
const MaxHookInput = 4 << 20

// MaxFileBytes bounds a memory file: Claude Code's memory files are a few
// KiB, and a file larger than this is not one (a log, a dump) and is not
// read at all.
const MaxFileBytes = 1 << 20

// Reasons a memory file is not read. Each names the attack or accident it
// stops.
var (
	// ErrNotRegular: a hard link (a second name of a file kept
	// elsewhere), a directory, a device or a FIFO.
	ErrNotRegular = errors.New("not a regular file")
	// ErrOutside: a link, or a linked directory, leads out of the memory
	// files (CLAUDE.md -> ~/.aws/credentials).
	ErrOutside = errors.New("a link leads outside the memory files")
	// ErrNotText: not valid UTF-8, or has a NUL byte (a binary file).
	ErrNotText = errors.New("not UTF-8 text")
	// ErrTooLarge: over MaxFileBytes.
	ErrTooLarge = fmt.Errorf("larger than %d bytes", MaxFileBytes)
)

// HookEvent is the part of Claude Code's PostToolUse input the hook reads.
type HookEvent struct {
	HookEventName string `json:"hook_event_name"`
	ToolName      string `json:"tool_name"`
	Cwd           string `json:"cwd"`
	ToolInput     struct {
		FilePath string `json:"file_path"`
	} `json:"tool_input"`
}

// Input is what the hook was handed: a Claude Code hook event (which
// names a file), or a host-neutral conversation turn.
type Input struct {
	Event *HookEvent
	Turn  *Turn
}

// ParseInput reads the hook's stdin: a JSON object with hook_event_name is
// a Claude Code hook event, any other object is a [Turn].
func ParseInput(b []byte) (Input, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return Input{}, fmt.Errorf("capture: hook input is not a JSON object: %w", err)
	}
	if _, ok := probe["hook_event_name"]; ok {
		var ev HookEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			return Input{}, fmt.Errorf("capture: hook event: %w", err)
		}
		return Input{Event: &ev}, nil
	}
	var t Turn
	if err := json.Unmarshal(b, &t); err != nil {
		return Input{}, fmt.Errorf("capture: turn: %w", err)
	}
	return Input{Turn: &t}, nil
}

// MemoryFile is the memory file a PostToolUse event wrote (absolute), or
// "" when the event is another event or wrote another file.
func (ev *HookEvent) MemoryFile(e integrate.Env) string {
	path := ev.ToolInput.FilePath
	if path != "" && !filepath.IsAbs(path) && ev.Cwd != "" {
		path = filepath.Join(ev.Cwd, path)
	}
	if ev.HookEventName != "PostToolUse" || !IsMemoryFile(e, path) {
		return ""
	}
	return filepath.Clean(path)
}

// IsMemoryFile says whether path names a memory file: a CLAUDE.md (or
// CLAUDE.local.md) anywhere, or a Markdown file in a project's memory
// directory under Claude Code's projects directory
// (projects/<project>/memory/…/*.md). It looks at the name only;
// [ReadMemoryFile] checks what is there.
func IsMemoryFile(e integrate.Env, path string) bool {
	if path == "" || !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	base := filepath.Base(path)
	if base == "CLAUDE.md" || base == "CLAUDE.local.md" {
		return true
	}
	return inMemoryDir(integrate.ClaudeProjects(e), path)
}

// inMemoryDir: path is a .md file in <projects>/<project>/memory/.
func inMemoryDir(projects, path string) bool {
	rel, err := filepath.Rel(projects, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || !strings.HasSuffix(path, ".md") {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 3 && parts[1] == "memory"
}

// ReadMemoryFile reads a memory file as the hook and import-claude may:
// only what is still a memory file once every link in its path is
// resolved (a CLAUDE.md linked to dotfiles/CLAUDE.md is read, one linked
// to ~/.aws/credentials is not; a linked memory directory must stay inside
// Claude Code's projects directory), only a regular file (never a hard
// link, device or FIFO), only text (valid UTF-8, no NUL) of at most
// [MaxFileBytes]. It returns the text without the block compartment
// itself manages in CLAUDE.md ("" when nothing else is left) and the
// file's modification day (YYYY-MM-DD, local time). A refusal wraps one of
// the Err* reasons above.
func ReadMemoryFile(e integrate.Env, path string) (text, day string, err error) {
	fail := func(err error) (string, string, error) {
		return "", "", fmt.Errorf("capture: memory file %s: %w", path, err)
	}
	real, err := checkResolved(e, path)
	if err != nil {
		return fail(err)
	}
	f, fi, err := openRegular(real)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if extraLinks(fi) {
		return fail(ErrNotRegular)
	}
	if fi.Size() > MaxFileBytes {
		return fail(ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return fail(err)
	}
	if len(b) > MaxFileBytes {
		return fail(ErrTooLarge)
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return fail(ErrNotText)
	}
	day = fi.ModTime().Format("2006-01-02")
	if from, to, ok := integrate.IsManagedBlock(string(b)); ok {
		b = append(append([]byte(nil), b[:from]...), b[to:]...)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "", day, nil
	}
	return string(b), day, nil
}

// checkResolved resolves every link in path and returns the file it
// names, which must itself be a memory file: a CLAUDE.md must still be a
// CLAUDE.md (a dotfiles link to dotfiles/CLAUDE.md is fine, a link to
// ~/.aws/credentials is outside), and a file named as being in a memory
// directory must still be in one (projects/p/memory linked to /etc is
// outside).
func checkResolved(e integrate.Env, path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	name := filepath.Base(path)
	if (name == "CLAUDE.md" || name == "CLAUDE.local.md") && filepath.Base(real) == name {
		return real, nil
	}
	projects := integrate.ClaudeProjects(e)
	if rp, err := filepath.EvalSymlinks(projects); err == nil {
		projects = rp
	}
	if !inMemoryDir(projects, real) {
		return "", ErrOutside
	}
	return real, nil
}

// openRegular opens path for reading only if it is a regular file and not
// a link in its last component, and only if what was opened is the file
// that was checked (no swap in between). A refusal wraps ErrNotRegular.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, ErrNotRegular
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, ErrNotRegular
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		f.Close()
		return nil, nil, ErrNotRegular
	}
	return f, fi, nil
}
