package main

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// UninstallCmd takes back what integrate, hook and the skill wrote.
type UninstallCmd struct {
	Purge  bool `help:"Also delete the vault, its settings file and its lock (every memory in it is lost)."`
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
	var changes []map[string]string
	failed := 0
	items := append([]integrate.Item(nil), st.Items...)
	// Newest first: two writes to one file (Hermes' MCP entry, then its
	// memory provider) are each restored from their own backup, so the
	// file ends byte for byte as it was.
	slices.Reverse(items)
	for i := range items {
		it := st.Find(items[i].Kind, items[i].Path)
		if it == nil {
			continue
		}
		ch, err := integrate.Undo(e, st, it, c.DryRun)
		row := map[string]string{"kind": items[i].Kind, "client": items[i].Client, "path": items[i].Path, "action": ch.Action, "backup": ch.Backup}
		if err != nil {
			failed++
			row["error"] = err.Error()
			fmt.Fprintf(app.Stderr, "compartment: %v\n", err)
		} else if !c.JSON {
			line := describe(items[i].Client+" "+items[i].Kind, ch, c.DryRun)
			if ch.Message != "" {
				line += ": " + ch.Message
			}
			fmt.Fprintln(app.Stdout, line)
		}
		changes = append(changes, row)
	}
	if len(items) == 0 && !c.JSON {
		fmt.Fprintln(app.Stdout, "Nothing to take back: integrate has not written anything for this user.")
	}
	if c.Purge {
		for _, p := range []string{app.Vault, vault.ConfigPath(app.Vault), app.Vault + ".lock"} {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if !c.DryRun {
				if p == app.Vault {
					if s, err := session.For(app.Vault); err == nil {
						s.Lock()
					}
				}
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("delete %s: %w", p, err)
				}
			}
			changes = append(changes, map[string]string{"kind": "vault", "path": p, "action": "removed"})
			if !c.JSON {
				fmt.Fprintln(app.Stdout, describe("vault file", integrate.Change{Path: p, Action: "removed"}, c.DryRun))
			}
		}
	}
	if c.JSON {
		if err := printJSON(app.Stdout, changes); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d files could not be taken back (see above)", failed)
	}
	return nil
}
