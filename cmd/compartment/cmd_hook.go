package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
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
	pinned := "" // the hook follows COMPARTMENT_VAULT unless pinned
	if c.PinVault {
		pinned = app.Vault
	}
	ch, err := integrate.InstallHook(e, st, integrate.HookCommand(srv, pinned), c.DryRun)
	if err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, render.Describe("Claude Code: capture hook", ch, c.DryRun))
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
	fmt.Fprintln(app.Stdout, render.Describe("Claude Code: capture hook", ch, c.DryRun))
	return nil
}

// HookStatusCmd reports on the hook.
type HookStatusCmd struct {
	JSON bool `help:"Print the status as JSON." name:"json"`
}

func (c *HookStatusCmd) Run(app *App) error {
	_, unlocked := app.quietCredential()
	st, err := capture.Status(integrate.HostEnv(), app.Vault, unlocked)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, st)
	}
	render.HookStatus(app.Stdout, st)
	return nil
}

// HookCaptureCmd is what the hook runs. It always exits 0 within
// captureBudget and prints nothing (Claude Code shows a hook's output in
// the transcript). While the vault is locked it stores nothing: a memory
// file's path, or a turn's transcript and message id, goes on the pending
// list for the next unlock; a turn without them is dropped. Problems go to hook.log beside the integration state.
type HookCaptureCmd struct {
	JSON bool `help:"Print what was stored as JSON (for hosts that want to know; the Claude Code hook prints nothing)." name:"json"`
}

// captureBudget bounds one capture; Claude Code's own limit for the hook
// (30 s in the settings) is well above it.
const captureBudget = 20 * time.Second

func (c *HookCaptureCmd) Run(app *App) error {
	rep, err := capture.Hook{In: app.Stdin, Vault: app.Vault, Env: integrate.HostEnv(), Budget: captureBudget,
		Caller: app.Caller, CallerSet: app.Caller != defaultCaller, Credential: app.quietCredential,
		Open: func(u vaultfmt.Unlock, caller string) (*vault.Vault, error) {
			app.importPending(u)
			app.Caller = caller
			return app.openVaultWith(u)
		}}.Run()
	if err != nil {
		hookLog(err)
	}
	if c.JSON && !errors.Is(err, capture.ErrAbandoned) {
		render.JSON(app.Stdout, rep)
	}
	return nil
}

// importPending imports the memory files the hook listed while the vault
// was locked (capture.ImportPending), opening the vault with u as each
// listed caller. It is what every unlock path calls; problems go to
// hook.log, a summary to stderr.
func (app *App) importPending(u vaultfmt.Unlock) capture.PendingResult {
	res, err := capture.ImportPending(app.Vault, integrate.HostEnv(), func(caller string) (*vault.Vault, func(), error) {
		saved := app.Caller
		app.Caller = caller
		defer func() { app.Caller = saved }()
		v, err := app.openVaultWith(u)
		if err != nil {
			return nil, nil, err
		}
		return v, func() { v.Close() }, nil
	})
	if err != nil {
		hookLog(fmt.Errorf("import of the files captured while locked: %w", err))
	}
	for _, s := range res.Skipped {
		hookLog(fmt.Errorf("captured while locked, not imported: %s: %s", s.Path, s.Reason))
	}
	if sum := res.Summary(); sum != "" && app.Stderr != nil {
		fmt.Fprintln(app.Stderr, sum)
	}
	return res
}

// hookLog appends one line to hook.log (integrate.HookLog), the hook's
// only output.
func hookLog(err error) { integrate.HookLog(integrate.HostEnv(), err) }

var errVaultLocked = errors.New("the vault is locked")
