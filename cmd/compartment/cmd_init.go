package main

import (
	"fmt"
	"os"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// InitCmd creates a new vault.
type InitCmd struct {
	NoApp       bool `help:"Do not start the desktop panel (headless machines, CI)."`
	NoIntegrate bool `help:"Do not offer to connect the agents found here (never asked without a terminal)."`
	passphraseStdin
	JSON        bool `help:"Print the result as JSON." name:"json"`
	NoReference bool `help:"Start empty: do not load the bundled reference facts."`
}

func (c *InitCmd) Run(app *App) error {
	if _, err := os.Stat(app.Vault); err == nil {
		return fmt.Errorf("a vault already exists at %s; nothing was changed (use --vault to create another)", app.Vault)
	}
	pass, err := app.newPassphrase(c.PassphraseStdin, true)
	if err != nil {
		return err
	}
	keyfile, err := app.readKeyfile()
	if err != nil {
		return err
	}
	enc, err := app.encoder()
	if err != nil {
		return err
	}
	v, err := vault.Create(app.Vault, vault.Options{
		Unlock: vaultfmt.Unlock{Passphrase: pass, Keyfile: keyfile}, Caller: app.Caller, Encoder: enc,
	})
	if err != nil {
		return err
	}
	defer v.Close()
	if app.Keyfile != "" {
		if err := session.RememberKeyfile(app.Vault, app.Keyfile); err != nil {
			return err
		}
	}
	if !c.NoReference {
		if err := loadReference(app, v, false, c.JSON); err != nil {
			return err
		}
	}
	st, err := v.Status()
	if err != nil {
		return err
	}
	unlockErr := session.UnlockCreated(app.Vault, vaultfmt.Unlock{Passphrase: pass, Keyfile: keyfile})
	if c.JSON {
		if !c.NoApp {
			startPanel(app)
		}
		return render.JSON(app.Stdout, api.Created{Model: st.Model.Pinned, Path: app.Vault, Unlocked: unlockErr == nil, VaultID: st.VaultID})
	}
	render.Created(app.Stdout, app.Vault)
	render.UnlockedAfterInit(app.Stdout, unlockErr)
	offerIntegrations(app, c.NoIntegrate)
	if !c.NoApp && startPanel(app) {
		fmt.Fprintln(app.Stdout, "The panel is open: unlock, lock and connect agents there (compartment panel opens it again).")
	}
	fmt.Fprintln(app.Stdout, "Next: compartment store \"a fact worth keeping\" --source \"from chat\"")
	return nil
}
