package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// UnlockCmd unlocks the vault for every process of this user until reboot,
// lock or auto-lock.
type UnlockCmd struct {
	passphraseStdin
	Once     bool `help:"Let exactly one process in: the first command or agent to open the vault takes the credential (deleting it) and keeps the key until it exits or the vault is locked; everyone else still finds it locked."`
	Keychain bool `help:"macOS: keep the key in your login keychain instead, so the vault stays unlocked across reboots until 'compartment lock' (an explicit opt-in, weaker than the default)."`
	JSON     bool `help:"Print the result as JSON." name:"json"`
}

func (c *UnlockCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	if c.Keychain {
		return c.keychain(app)
	}
	r := c.request(app)
	app.keySource = session.PassphraseSource(app.Vault, r, true)
	res, err := session.UnlockEveryone(app.Vault, r, c.Once)
	if err != nil {
		return err
	}
	if !res.Already {
		app.importPending(res.Unlock) // memory files the hook saw while locked (cmd_hook.go)
	}
	if res.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "unlocked, but the keyfile location was not remembered: %v\n", res.RememberErr)
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.UnlockedOf(res))
	}
	render.Unlocked(app.Stdout, res, c.Once)
	return nil
}

// vaultExists refuses a path with no vault, saying how to make one.
func vaultExists(path string) error {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no vault at %s: create one with `compartment init`", path)
		}
		return err
	}
	return nil
}

// LockCmd flushes and compacts the vault (and with --sign signs it), then
// locks it for every process: the credential is deleted and every process
// holding the key drops it before its next call.
type LockCmd struct {
	Sign bool `help:"Sign the vault's manifest with your identity key, so a recipient can check it with verify."`
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *LockCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	if err := vault.CheckReadsSomething(app.Vault, app.Caller, "lock"); err != nil {
		return err
	}
	signer := ""
	ok, err := session.LockEveryone(app.Vault, app.credentialRequest(true), c.Sign, func(u vaultfmt.Unlock) (err error) {
		signer, err = c.flush(app, u)
		return err
	})
	if err != nil {
		return err
	}
	l := api.Locked{Flushed: ok, Locked: true, Signed: signer != "", Signer: signer}
	if c.JSON {
		return render.JSON(app.Stdout, l)
	}
	render.Locked(app.Stdout, l)
	return nil
}

// flush compacts (or signs) the vault before the lock.
func (c *LockCmd) flush(app *App, u vaultfmt.Unlock) (signer string, err error) {
	v, err := app.openByUnlock(u)
	if err != nil {
		return "", err
	}
	defer v.Close()
	if !c.Sign {
		return "", v.Flush()
	}
	key, err := vault.LoadIdentity(compartmentHome())
	if err != nil {
		return "", err
	}
	if err := v.Sign(key); err != nil {
		return "", err
	}
	return vault.Fingerprint(key.Public().(ed25519.PublicKey)), nil
}

// TwoFACmd manages two-factor unlock: passphrase plus keyfile, both fed
// into Argon2id, so the vault file and the passphrase open nothing without
// the keyfile.
type TwoFACmd struct {
	Enable  TwoFAEnableCmd  `cmd:"" help:"Require a keyfile as well as the passphrase (--keyfile PATH: use that file, or create it there; default: generate one outside the vault's directory)."`
	Disable TwoFADisableCmd `cmd:"" help:"Go back to the passphrase alone."`
	Status  TwoFAStatusCmd  `cmd:"" help:"Say whether a keyfile is required and where it is expected."`
}

// TwoFAEnableCmd adds the keyfile factor.
type TwoFAEnableCmd struct {
	passphraseStdin
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *TwoFAEnableCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	r := c.request(app)
	app.keySource = session.PassphraseSource(app.Vault, r, false)
	t, err := session.EnableTwoFactor(app.Vault, r, app.openByUnlock)
	if err != nil {
		return err
	}
	if t.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "two-factor unlock is on, but the keyfile location was not remembered (%v): pass --keyfile %s when unlocking\n", t.RememberErr, t.Keyfile)
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.TwoFactorEnabled{Enabled: true, Keyfile: t.Keyfile, Generated: t.Generated})
	}
	render.TwoFactorEnabled(app.Stdout, app.Stderr, t, session.InVaultDir(app.Vault, t.Keyfile))
	return nil
}

// openByUnlock opens the vault with a given credential and nothing else
// (no encoder, no sync, no sweep): what changing key slots needs.
func (app *App) openByUnlock(u vaultfmt.Unlock) (*vault.Vault, error) {
	return vault.Open(app.Vault, app.vaultOptions(vault.Options{Unlock: u, Caller: app.Caller}))
}

// TwoFADisableCmd removes the keyfile factor.
type TwoFADisableCmd struct {
	passphraseStdin
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *TwoFADisableCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	r := c.request(app)
	app.keySource = session.PassphraseSource(app.Vault, r, false)
	t, err := session.DisableTwoFactor(app.Vault, r, app.openByUnlock)
	if err != nil {
		return err
	}
	if t.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "two-factor unlock is off, but the config still names the keyfile: %v\n", t.RememberErr)
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.TwoFactorDisabled{})
	}
	fmt.Fprintln(app.Stdout, "two-factor unlock is off: the passphrase alone opens the vault (the keyfile was not deleted)")
	return nil
}

// TwoFAStatusCmd reports the keyfile factor; it needs no credential.
type TwoFAStatusCmd struct {
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *TwoFAStatusCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	t, err := session.TwoFactorState(app.Vault)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.TwoFactorStatus{Enabled: t.Enabled, Keyfile: t.Keyfile, KeyfilePresent: t.Present})
	}
	render.TwoFactorStatus(app.Stdout, t)
	return nil
}
