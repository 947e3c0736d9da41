package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// VerifyCmd checks the vault file: structure, every seal when a credential
// is at hand, the audit chain, and the signature if present.
type VerifyCmd struct {
	JSON bool `help:"Print the report as JSON." name:"json"`
}

func (c *VerifyCmd) Run(app *App) error {
	var u *vaultfmt.Unlock
	if cred, ok := app.quietCredential(); ok {
		u = &cred
	}
	out, err := vault.VerifyFile(app.Vault, u, compartmentHome(), app.vaultOptions(vault.Options{Caller: app.Caller}))
	if err != nil {
		return err
	}
	if c.JSON {
		if err := render.JSON(app.Stdout, out); err != nil {
			return err
		}
	} else {
		render.Verify(app.Stdout, out)
	}
	if !out.OK {
		return &exitError{code: 1, err: fmt.Errorf("verify %s: problems found (see above)", app.Vault)}
	}
	return nil
}

// compartmentHome is ~/.compartment: identity key, models, benchmarks.
func compartmentHome() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".compartment"
	}
	return filepath.Join(home, ".compartment")
}

// RekeyCmd changes the passphrase.
type RekeyCmd struct {
	NewPassphraseStdin bool `help:"Read the new passphrase from the first line of stdin."`
}

func (c *RekeyCmd) Run(app *App) error {
	// Changing the passphrase requires knowing it: an unlocked session is
	// not enough.
	v, _, err := app.openVaultByPassphrase()
	if err != nil {
		return err
	}
	defer v.Close()
	pass, err := app.newPassphrase(c.NewPassphraseStdin, false)
	if err != nil {
		return err
	}
	keyfile, err := app.readKeyfile()
	if err != nil {
		return err
	}
	if err := v.Rekey(pass, keyfile, vaultfmt.KDFParams{}); err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, "passphrase changed: every key slot was rewritten; the old passphrase no longer opens the vault")
	return nil
}
