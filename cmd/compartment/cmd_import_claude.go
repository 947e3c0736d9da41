package main

import (
	"github.com/compartment/compartment/internal/render"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// ImportClaudeCmd copies what Claude Code wrote into the vault.
type ImportClaudeCmd struct {
	Dir       []string `help:"Also import the CLAUDE.md files under this project directory (repeatable)." placeholder:"DIR"`
	Namespace string   `help:"Namespace to store into (default: the caller's own; caller claude-code unless --caller is given)."`
	DryRun    bool     `help:"List the memories that would be stored, and store nothing."`
	JSON      bool     `help:"Print the result as JSON." name:"json"`
}

func (c *ImportClaudeCmd) Run(app *App) error {
	n, err := importClaude(app, integrate.HostEnv(), importOptions{dirs: c.Dir, namespace: c.Namespace, dryRun: c.DryRun, ask: true})
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, n)
	}
	render.ClaudeImport(app.Stdout, n)
	return nil
}

type importOptions struct {
	dirs      []string
	namespace string
	dryRun    bool
	ask       bool // may prompt for the passphrase
}

// importClaude stores the claims of every Claude Code memory file
// (capture.Import), with the credential at hand, or asked for when ask is
// set; without either it is errVaultLocked.
func importClaude(app *App, e integrate.Env, o importOptions) (capture.ImportReport, error) {
	dirs := make([]string, len(o.dirs))
	for i, d := range o.dirs {
		dirs[i] = expandPath(d)
	}
	return capture.Import{Env: e, Dirs: dirs, Namespace: o.namespace, DryRun: o.dryRun,
		Caller: app.Caller, CallerSet: app.Caller != defaultCaller,
		Credential: func() (vaultfmt.Unlock, error) {
			if u, ok := app.quietCredential(); ok {
				return u, nil
			}
			if !o.ask {
				return vaultfmt.Unlock{}, errVaultLocked
			}
			return app.credential()
		},
		Open: func(u vaultfmt.Unlock, caller string) (*vault.Vault, error) {
			saved := app.Caller
			app.Caller = caller
			defer func() { app.Caller = saved }()
			return app.openVaultWith(u)
		}}.Run()
}
