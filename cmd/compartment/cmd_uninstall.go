package main

import (
	"errors"
	"fmt"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// UninstallCmd takes back what integrate, hook and the skill wrote.
type UninstallCmd struct {
	Purge  bool `help:"Also delete the vault and the files beside it: settings, lock, trusted pack keys, sync sidecar, pending captures (every memory in it is lost)."`
	Yes    bool `help:"With --purge: do not ask (needed without a terminal)."`
	DryRun bool `help:"Say what would change and write nothing."`
	JSON   bool `help:"Print the result as JSON." name:"json"`
}

func (c *UninstallCmd) Run(app *App) error {
	e := integrate.HostEnv()
	st, err := integrate.LoadState(e)
	if err != nil {
		return err
	}
	if c.Purge && !c.Yes && !c.DryRun {
		if !confirm(fmt.Sprintf("Delete the vault %s and every memory in it? Type yes: ", app.Vault)) {
			return errors.New("--purge needs a `yes` on the terminal, or --yes; nothing was changed")
		}
	}
	changes, _ := integrate.Uninstall(e, st, c.DryRun) // each failure is in its row
	failed := 0
	for _, ch := range changes {
		if ch.Error != "" {
			failed++
			fmt.Fprintf(app.Stderr, "compartment: %s\n", ch.Error)
		} else if !c.JSON {
			render.Undone(app.Stdout, ch, c.DryRun)
		}
	}
	if len(changes) == 0 && !c.JSON {
		fmt.Fprintln(app.Stdout, "Nothing to take back: integrate has not written anything for this user.")
	}
	if c.Purge {
		if !c.DryRun {
			if s, err := session.For(app.Vault); err == nil {
				s.Lock()
			}
		}
		gone, err := vault.Purge(app.Vault, c.DryRun, devsync.SidecarPath(app.Vault), capture.PendingPath(app.Vault))
		for _, p := range gone {
			changes = append(changes, integrate.Undone{Kind: "vault", Path: p, Action: "removed"})
			if !c.JSON {
				fmt.Fprintln(app.Stdout, render.Describe("vault file", integrate.Change{Path: p, Action: "removed"}, c.DryRun))
			}
		}
		if err != nil {
			return err
		}
	}
	if c.JSON {
		if err := render.JSON(app.Stdout, changes); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d files could not be taken back (see above)", failed)
	}
	return nil
}
