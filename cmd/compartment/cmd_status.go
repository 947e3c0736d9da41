package main

import (
	"github.com/compartment/compartment/internal/render"
	"os"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// StatusCmd reports on the vault.
type StatusCmd struct {
	JSON bool `help:"Print the status as JSON." name:"json"`
}

func (c *StatusCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	if err := vault.CheckReadsSomething(app.Vault, app.Caller, "status"); err != nil {
		return err
	}
	// A locked vault is a state to report, not an error: status never
	// asks for the passphrase when no credential is at hand.
	u, ok := app.quietCredential()
	if !ok {
		return c.locked(app)
	}
	v, err := app.openVaultWith(u)
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := v.Status()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.StatusOf(st))
	}
	render.Status(app.Stdout, st)
	return nil
}

// locked reports a vault no credential opens right now, and what opening
// it takes. Whether a keyfile is needed comes from the kinds of the key
// slots, which the header holds in plaintext (FORMAT.md, 2.3) for anyone
// with the file to read: nothing secret is read or told, and no key is
// derived. (Someone who alters the file can make the answer wrong, but not
// the vault open: the slot bytes are bound into each slot's seal.)
func (c *StatusCmd) locked(app *App) error {
	var size int64
	if fi, err := os.Stat(app.Vault); err == nil {
		size = fi.Size()
	}
	needKeyfile, err := session.NeedsKeyfile(app.Vault)
	if err != nil {
		return err
	}
	st := api.LockedStatus(app.Vault, size, needKeyfile)
	if c.JSON {
		return render.JSON(app.Stdout, st)
	}
	render.LockedStatus(app.Stdout, st)
	return nil
}
