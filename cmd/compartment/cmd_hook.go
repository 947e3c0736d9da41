package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
)

// HookCmd manages Claude Code's capture hook and runs it.
type HookCmd struct {
	Install   HookInstallCmd   `cmd:"" help:"Add the PostToolUse hook to Claude Code's settings (backed up first; other hooks untouched)."`
	Uninstall HookUninstallCmd `cmd:"" help:"Take the hook out of Claude Code's settings."`
	Status    HookStatusCmd    `cmd:"" help:"Is the hook installed, and can it store (is the vault unlocked)?"`
	Capture   HookCaptureCmd   `cmd:"" help:"Read a Claude Code hook event or a conversation turn on stdin and store its memories (what the hook runs)."`
}

// HookInstallCmd installs the capture hook.
type HookInstallCmd struct {
	PinVault bool `help:"Write this vault's path into the hook, so it never follows COMPARTMENT_VAULT."`
	DryRun   bool `help:"Say what would change and write nothing."`
}

func (c *HookInstallCmd) Run(app *App) error {
	e, st, srv, err := app.integration()
	if err != nil {
		return err
	}
	ch, err := integrate.InstallHook(e, st, hookCommand(srv, c.PinVault, app.Vault), c.DryRun)
	if err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, describe("Claude Code: capture hook", ch, c.DryRun))
	return nil
}

// HookUninstallCmd removes the capture hook.
type HookUninstallCmd struct {
	DryRun bool `help:"Say what would change and write nothing."`
}

func (c *HookUninstallCmd) Run(app *App) error {
	e := integrate.HostEnv()
	st, err := integrate.LoadState(e)
	if err != nil {
		return err
	}
	ch, err := integrate.UninstallHook(e, st, c.DryRun)
	if err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, describe("Claude Code: capture hook", ch, c.DryRun))
	return nil
}

// HookStatusCmd reports on the hook.
type HookStatusCmd struct {
	JSON bool `help:"Print the status as JSON." name:"json"`
}

func (c *HookStatusCmd) Run(app *App) error {
	e := integrate.HostEnv()
	cmds, err := integrate.HookCommands(e)
	if err != nil {
		return err
	}
	_, unlocked := app.quietCredential()
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{
			"installed": len(cmds) > 0, "commands": cmds, "settings": integrate.ClaudeSettings(e), "vault_unlocked": unlocked,
		})
	}
	if len(cmds) == 0 {
		fmt.Fprintf(app.Stdout, "capture hook: not installed in %s (`compartment hook install`)\n", integrate.ClaudeSettings(e))
		return nil
	}
	fmt.Fprintf(app.Stdout, "capture hook: installed in %s\n", integrate.ClaudeSettings(e))
	for _, cmd := range cmds {
		fmt.Fprintf(app.Stdout, "  runs: %s\n", cmd)
	}
	if unlocked {
		fmt.Fprintln(app.Stdout, "vault: unlocked, so memory files Claude Code writes are stored")
	} else {
		fmt.Fprintln(app.Stdout, "vault: locked, so the hook stores nothing until `compartment unlock`")
	}
	return nil
}

// hookCommand is the shell command Claude Code runs for the hook.
func hookCommand(srv integrate.Server, pin bool, vault ...string) string {
	parts := []string{shellQuote(srv.Command)}
	caller := srv.Caller
	if caller == "" {
		caller = "claude-code"
	}
	parts = append(parts, "--caller", shellQuote(caller))
	v := srv.Vault
	if pin && len(vault) > 0 {
		v = vault[0]
	}
	if v != "" {
		parts = append(parts, "--vault", shellQuote(v))
	}
	return strings.Join(append(parts, "hook", "capture"), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:=@%", r)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookCaptureCmd is what the hook runs. It always exits 0 within
// captureBudget, prints nothing (Claude Code shows a hook's output in the
// transcript), and stores nothing while the vault is locked. Problems go
// to hook.log beside the integration state.
type HookCaptureCmd struct {
	JSON bool `help:"Print what was stored as JSON (for hosts that want to know; the Claude Code hook prints nothing)." name:"json"`
}

// captureBudget bounds one capture; Claude Code's own limit for the hook
// (30 s in the settings) is well above it.
const captureBudget = 20 * time.Second

// maxHookInput bounds what is read from stdin and from a memory file.
const maxHookInput = 4 << 20

// hookEvent is the part of Claude Code's PostToolUse input the hook reads.
type hookEvent struct {
	HookEventName string `json:"hook_event_name"`
	ToolName      string `json:"tool_name"`
	Cwd           string `json:"cwd"`
	ToolInput     struct {
		FilePath string `json:"file_path"`
	} `json:"tool_input"`
}

func (c *HookCaptureCmd) Run(app *App) error {
	done := make(chan captureReport, 1)
	go func() {
		rep, err := c.capture(app)
		if err != nil {
			hookLog(err)
		}
		done <- rep
	}()
	select {
	case rep := <-done:
		if c.JSON {
			printJSON(app.Stdout, rep)
		}
	case <-time.After(captureBudget):
		hookLog(fmt.Errorf("capture took longer than %s and was abandoned", captureBudget))
	}
	return nil
}

type captureReport struct {
	Stored     int    `json:"stored"`
	Duplicates int    `json:"duplicates"`
	Skipped    string `json:"skipped,omitempty"`
}

func (c *HookCaptureCmd) capture(app *App) (captureReport, error) {
	in, err := io.ReadAll(io.LimitReader(app.Stdin, maxHookInput))
	if err != nil {
		return captureReport{}, fmt.Errorf("read stdin: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(in, &probe); err != nil {
		return captureReport{Skipped: "input is not a JSON object"}, fmt.Errorf("hook input is not a JSON object: %v", err)
	}
	var mems []capture.Memory
	source := "from chat"
	var discovered string
	_, isHook := probe["hook_event_name"]
	if isHook {
		var ev hookEvent
		if err := json.Unmarshal(in, &ev); err != nil {
			return captureReport{}, fmt.Errorf("hook input: %v", err)
		}
		path := ev.ToolInput.FilePath
		if path != "" && !filepath.IsAbs(path) && ev.Cwd != "" {
			path = filepath.Join(ev.Cwd, path)
		}
		if ev.HookEventName != "PostToolUse" || !isClaudeMemoryFile(integrate.HostEnv(), path) {
			return captureReport{Skipped: "not a memory file"}, nil
		}
		text, mod, err := readMemoryFile(path)
		if err != nil {
			return captureReport{}, err
		}
		source, discovered = "Claude Code memory file "+path, mod
		mems = capture.File(text, capture.MaxChars)
	} else {
		var t capture.Turn
		if err := json.Unmarshal(in, &t); err != nil {
			return captureReport{}, fmt.Errorf("turn input: %v", err)
		}
		mems = capture.FromTurn(t, capture.MaxChars)
	}
	if len(mems) == 0 {
		return captureReport{Skipped: "nothing to store"}, nil
	}
	u, ok := app.quietCredential()
	if !ok {
		return captureReport{Skipped: "the vault is locked"}, nil
	}
	if isHook && app.Caller == defaultCaller {
		app.Caller = "claude-code" // as the installed hook says; a turn's host names itself
	}
	v, err := app.openVaultWith(u)
	if err != nil {
		return captureReport{}, err
	}
	defer v.Close()
	n, err := storeMemories(v, mems, source, discovered, "")
	return captureReport{Stored: n.stored, Duplicates: n.duplicates}, err
}

// isClaudeMemoryFile: a CLAUDE.md (or CLAUDE.local.md) anywhere, or a
// Markdown file in a project's memory directory under Claude Code's
// projects directory.
func isClaudeMemoryFile(e integrate.Env, path string) bool {
	if path == "" {
		return false
	}
	base := filepath.Base(path)
	if base == "CLAUDE.md" || base == "CLAUDE.local.md" {
		return true
	}
	rel, err := filepath.Rel(integrate.ClaudeProjects(e), path)
	if err != nil || strings.HasPrefix(rel, "..") || !strings.HasSuffix(base, ".md") {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 3 && parts[1] == "memory"
}

// readMemoryFile reads a memory file (bounded), without the block
// compartment itself manages in CLAUDE.md, and its modification day.
func readMemoryFile(path string) (text, day string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHookInput))
	if err != nil {
		return "", "", err
	}
	if fi, err := f.Stat(); err == nil {
		day = fi.ModTime().Format("2006-01-02")
	}
	if from, to, ok := integrate.IsManagedBlock(string(b)); ok {
		b = append(append([]byte(nil), b[:from]...), b[to:]...)
	}
	if !bytes.ContainsFunc(b, func(r rune) bool { return r != ' ' && r != '\n' && r != '\t' }) {
		return "", day, nil
	}
	return string(b), day, nil
}

// hookLog appends one line to hook.log (kept under 1 MiB), the hook's
// only output.
func hookLog(err error) {
	dir := integrate.StateDir(integrate.HostEnv())
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	p := filepath.Join(dir, "hook.log")
	if fi, e := os.Stat(p); e == nil && fi.Size() > 1<<20 {
		os.Rename(p, p+".1")
	}
	f, e := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if e != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(err.Error(), "\n", " "))
}

var errVaultLocked = errors.New("the vault is locked")
