package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/vaultfmt"
)

// IntegrateCmd wires MCP clients to this vault.
type IntegrateCmd struct {
	Clients    []string `arg:"" optional:"" help:"Clients to wire (see --list): claude, hermes, openclaw, codex, cursor, ..."`
	List       bool     `help:"List every client: installed here? wired? where its file is."`
	All        bool     `help:"Wire every client that is installed here."`
	DryRun     bool     `help:"Say what would change and write nothing."`
	Force      bool     `help:"Replace a compartment entry you wrote yourself (uninstall puts yours back)."`
	NoHooks    bool     `help:"claude: do not install the capture hook."`
	NoImport   bool     `help:"claude: do not import what Claude Code already wrote."`
	NoSkill    bool     `help:"claude, hermes, openclaw: do not install the /compartmentalize skill."`
	NoProvider bool     `help:"hermes: do not install and select the memory provider plugin (recall and capture on every turn)."`
	JSON       bool     `help:"Print the result as JSON." name:"json"`
}

func (c *IntegrateCmd) Run(app *App) error {
	e := integrate.HostEnv()
	if c.List {
		return c.list(app, e)
	}
	targets, err := integrate.Targets(e, c.Clients, c.All)
	if err != nil {
		return err
	}
	if c.All && len(targets) == 0 {
		fmt.Fprintln(app.Stdout, "No MCP client found here; `compartment integrate --list` shows every client and its file.")
		return nil
	}
	_, st, srv, err := app.integration()
	if err != nil {
		return err
	}
	var reports []integrate.Connection
	failed := 0
	for _, cl := range targets {
		rep, err := c.wire(app, e, st, cl, srv)
		if err != nil {
			failed++
			fmt.Fprintf(app.Stderr, "compartment: %s: %v\n", cl.Name, err)
		}
		reports = append(reports, rep)
	}
	if c.JSON {
		if err := printJSON(app.Stdout, reports); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d clients were not wired (see above)", failed, len(targets))}
	}
	return nil
}

// integration is what every integrate and hook command starts from: this
// user's environment, the state of what was written, and the server's
// command line.
func (app *App) integration() (integrate.Env, *integrate.State, integrate.Server, error) {
	e := integrate.HostEnv()
	st, err := integrate.LoadState(e)
	if err != nil {
		return e, nil, integrate.Server{}, err
	}
	srv, err := app.server()
	return e, st, srv, err
}

// server is the command line clients run: this binary (by name when the
// same file is first on PATH), the vault when it is not the default one,
// and the caller when one was given.
func (app *App) server() (integrate.Server, error) {
	self, err := os.Executable()
	if err != nil {
		return integrate.Server{}, fmt.Errorf("find this program's path: %w", err)
	}
	s := integrate.Server{Command: integrate.ServerCommand(integrate.HostEnv(), self)}
	if app.Vault != defaultVault() {
		s.Vault = app.Vault
	}
	if app.Caller != defaultCaller {
		s.Caller = app.Caller
	}
	return s, nil
}

func (c *IntegrateCmd) wire(app *App, e integrate.Env, st *integrate.State, cl *integrate.Client, srv integrate.Server) (integrate.Connection, error) {
	say := func(format string, args ...any) {
		if !c.JSON {
			fmt.Fprintf(app.Stdout, format+"\n", args...)
		}
	}
	rep, err := integrate.Connect(e, st, cl, srv, integrate.ExtraOptions{
		Options: integrate.Options{DryRun: c.DryRun, Force: c.Force},
		NoSkill: c.NoSkill, NoProvider: c.NoProvider, NoHook: c.NoHooks, HookCommand: integrate.HookCommand(srv, ""),
	})
	switch {
	case rep.WireFailed && rep.Block != "":
		say("%s: %v\nPaste this into it by hand:\n\n%s", cl.Name, err, rep.Block)
		return rep, err
	case rep.WireFailed:
		return rep, err
	case rep.Action == "paste":
		say("%s keeps its servers where compartment cannot edit them. Add this block:\n\n%s", cl.Name, rep.Block)
	default:
		say("%s", describe(cl.Name+": MCP server", rep.MCP, c.DryRun))
		if rep.MCP.Message != "" {
			say("  %s", rep.MCP.Message)
		}
	}
	for _, step := range rep.Steps {
		say("%s", describe(step.What, step.Change, c.DryRun))
		if step.Note != "" {
			say("  %s", step.Note)
		}
	}
	if err != nil || cl.ID != "claude-code" {
		return rep, err
	}
	if !c.NoImport && !c.DryRun {
		n, err := importClaude(app, e, importOptions{})
		switch {
		case errors.Is(err, errVaultLocked):
			say("Claude Code: memories it already wrote were not imported (the vault is locked); run `compartment unlock`, then `compartment import-claude`")
		case err != nil:
			say("Claude Code: import of its memory files failed: %v (run `compartment import-claude` to retry)", err)
		default:
			say("Claude Code: imported %d new memories from its memory files", n.Stored)
		}
	}
	say("\n%s", integrate.ClaudeDesktopHint(e, srv))
	say("Check with `claude mcp list`; new Claude Code sessions use the memory.")
	return rep, nil
}

// describe says in one line what happened to one file.
func describe(what string, ch integrate.Change, dry bool) string {
	verb := map[string]string{
		"created": "created", "updated": "updated", "unchanged": "already in place, nothing changed",
		"restored": "restored from the backup", "removed": "removed",
	}[ch.Action]
	if dry && ch.Action != "unchanged" {
		verb = "would be " + verb
	}
	s := fmt.Sprintf("%s %s (%s)", what, verb, ch.Path)
	if ch.Backup != "" {
		s += "; backup " + ch.Backup
	}
	return s
}

func (c *IntegrateCmd) list(app *App, e integrate.Env) error {
	rows := integrate.List(e)
	if c.JSON {
		return printJSON(app.Stdout, rows)
	}
	fmt.Fprintf(app.Stdout, "%-15s %-22s %-9s %-6s %s\n", "CLIENT", "NAME", "INSTALLED", "WIRED", "FILE")
	yes := map[bool]string{true: "yes", false: "-"}
	for _, r := range rows {
		if r.File == "" {
			r.File = "(no file: integrate prints the block to paste)"
		}
		fmt.Fprintf(app.Stdout, "%-15s %-22s %-9s %-6s %s\n", r.Client, r.Name, yes[r.Installed], yes[r.Wired], r.File)
	}
	return nil
}

// confirm asks a yes/no question on the terminal; false without one.
func confirm(question string) bool {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return false
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer tty.Close()
	fmt.Fprint(tty, question)
	line, _ := bufio.NewReader(tty).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// offerIntegrations is init's last step: the agents found here are wired
// when the user says so on the terminal; without a terminal (or with
// --no-integrate) init only says how.
func offerIntegrations(app *App, skip bool) {
	e := integrate.HostEnv()
	found := integrate.Offerable(e)
	if len(found) == 0 || skip {
		fmt.Fprintln(app.Stdout, "Connect an agent: compartment integrate claude (or hermes, openclaw; --list for all 28)")
		return
	}
	for _, cl := range found {
		name := cl.ID
		if cl.ID == "claude-code" {
			name = "claude"
		}
		if !confirm(fmt.Sprintf("Found %s. Connect it to the vault now? [y/N] ", cl.Name)) {
			fmt.Fprintf(app.Stdout, "Found %s: connect it with `compartment integrate %s`\n", cl.Name, name)
			continue
		}
		ic := &IntegrateCmd{Clients: []string{name}}
		if err := ic.Run(app); err != nil {
			fmt.Fprintf(app.Stderr, "compartment: %s: %v\n", cl.Name, err)
		}
	}
}

// unlockAfterInit opens an unlock session with the passphrase just chosen,
// so the next command (and every agent) can use the new vault at once. It
// returns the line init prints about it.
func unlockAfterInit(app *App, u vaultfmt.Unlock) (string, bool) {
	s, err := session.For(app.Vault)
	if err == nil {
		err = s.Unlock(u, false)
	}
	if err != nil {
		return fmt.Sprintf("The vault is locked (%v): run `compartment unlock` before storing.", err), false
	}
	return "Unlocked for your agents and commands until reboot or `compartment lock`.", true
}
