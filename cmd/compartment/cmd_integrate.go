package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/render"
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
		if err := render.JSON(app.Stdout, reports); err != nil {
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

// server is the command line clients run (integrate.ServerFor).
func (app *App) server() (integrate.Server, error) {
	self, err := os.Executable()
	if err != nil {
		return integrate.Server{}, fmt.Errorf("find this program's path: %w", err)
	}
	return integrate.ServerFor(integrate.HostEnv(), self, app.Vault, defaultVault(), app.Caller, defaultCaller), nil
}

func (c *IntegrateCmd) wire(app *App, e integrate.Env, st *integrate.State, cl *integrate.Client, srv integrate.Server) (integrate.Connection, error) {
	out := app.Stdout
	if c.JSON {
		out = io.Discard
	}
	rep, err := integrate.Connect(e, st, cl, srv, integrate.ExtraOptions{
		Options: integrate.Options{DryRun: c.DryRun, Force: c.Force},
		NoSkill: c.NoSkill, NoProvider: c.NoProvider, NoHook: c.NoHooks, HookCommand: integrate.HookCommand(srv, ""),
	})
	render.Connection(out, cl.Name, rep, err, c.DryRun)
	if err != nil || rep.WireFailed || cl.ID != "claude-code" {
		return rep, err
	}
	if !c.NoImport && !c.DryRun {
		n, err := importClaude(app, e, importOptions{})
		switch {
		case errors.Is(err, errVaultLocked):
			fmt.Fprintln(out, "Claude Code: memories it already wrote were not imported (the vault is locked); run `compartment unlock`, then `compartment import-claude`")
		case err != nil:
			fmt.Fprintf(out, "Claude Code: import of its memory files failed: %v (run `compartment import-claude` to retry)\n", err)
		default:
			fmt.Fprintf(out, "Claude Code: imported %d new memories from its memory files\n", n.Stored)
		}
	}
	fmt.Fprintf(out, "\n%s\n", integrate.ClaudeDesktopHint(e, srv))
	fmt.Fprintln(out, "Check with `claude mcp list`; new Claude Code sessions use the memory.")
	return rep, nil
}

func (c *IntegrateCmd) list(app *App, e integrate.Env) error {
	rows := integrate.List(e)
	if c.JSON {
		return render.JSON(app.Stdout, rows)
	}
	render.Clients(app.Stdout, rows)
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
// when the user says so on the terminal (integrate.Offer); without a
// terminal (or with --no-integrate) init only says how.
func offerIntegrations(app *App, skip bool) {
	if !skip && integrate.Offer(integrate.HostEnv(), confirm, func(cl *integrate.Client, yes bool) {
		if !yes {
			fmt.Fprintf(app.Stdout, "Found %s: connect it with `compartment integrate %s`\n", cl.Name, cl.Short())
		} else if err := (&IntegrateCmd{Clients: []string{cl.Short()}}).Run(app); err != nil {
			fmt.Fprintf(app.Stderr, "compartment: %s: %v\n", cl.Name, err)
		}
	}) > 0 {
		return
	}
	fmt.Fprintln(app.Stdout, "Connect an agent: compartment integrate claude (or hermes, openclaw; --list for all 28)")
}
