package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// UnlockCmd unlocks the vault for every process of this user until reboot,
// lock or auto-lock.
type UnlockCmd struct {
	PassphraseStdin bool `help:"Read the passphrase from the first line of stdin."`
	Once            bool `help:"Let exactly one process in: the first command or agent to open the vault takes the credential (deleting it) and keeps the key until it exits or the vault is locked; everyone else still finds it locked."`
	Keychain        bool `help:"macOS: keep the key in your login keychain instead, so the vault stays unlocked across reboots until 'compartment lock' (an explicit opt-in, weaker than the default)."`
	JSON            bool `help:"Print the result as JSON." name:"json"`
}

func (c *UnlockCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	if c.Keychain {
		return c.keychain(app)
	}
	res, err := session.UnlockEveryone(app.Vault, c.request(app), c.Once)
	if err != nil {
		return err
	}
	if !res.Already {
		app.importPending(res.Unlock) // memory files the hook saw while locked (cmd_hook.go)
	}
	if res.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "unlocked, but the keyfile location was not remembered: %v\n", res.RememberErr)
	}
	return c.report(app, res)
}

// request is where the passphrase comes from: stdin when asked, else the
// environment or the terminal.
func (c *UnlockCmd) request(app *App) session.Request {
	return session.TerminalRequest(app.Vault, app.Keyfile, app.stdinIf(c.PassphraseStdin), true)
}

func (c *UnlockCmd) report(app *App, res session.Unlocked) error {
	st, already := res.State, res.Already
	if c.JSON {
		return printJSON(app.Stdout, api.UnlockedOf(res))
	}
	idle := "never auto-locks (auto_lock_minutes = 0)"
	if st.AutoLock > 0 {
		idle = "auto-locks after " + st.AutoLock.String() + " without use"
	}
	switch {
	case already && c.Once:
		fmt.Fprintln(app.Stdout, "already unlocked for every process; run `compartment lock` first to let only one in")
	case already:
		fmt.Fprintf(app.Stdout, "already unlocked; %s\n", idle)
	case st.Once:
		fmt.Fprintln(app.Stdout, "unlocked for one process: the next command or agent to open the vault takes the key; everyone else still finds it locked")
	default:
		fmt.Fprintf(app.Stdout, "unlocked: every command and agent of yours on this machine can use the vault until reboot or `compartment lock`; it %s\n", idle)
	}
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
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"locked": true, "flushed": ok, "signed": signer != "", "signer": signer})
	}
	if ok {
		fmt.Fprintln(app.Stdout, "vault flushed and compacted")
	}
	if signer != "" {
		fmt.Fprintf(app.Stdout, "signed with identity key %s\n", signer)
	}
	fmt.Fprintln(app.Stdout, "locked: every process of yours drops the key before its next call; `compartment unlock` opens it again")
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
	PassphraseStdin bool `help:"Read the passphrase from the first line of stdin."`
	JSON            bool `help:"Print the result as JSON." name:"json"`
}

func (c *TwoFAEnableCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	r := session.TerminalRequest(app.Vault, app.Keyfile, app.stdinIf(c.PassphraseStdin), true)
	t, err := session.EnableTwoFactor(app.Vault, r, app.openByUnlock)
	if err != nil {
		return err
	}
	if t.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "two-factor unlock is on, but the keyfile location was not remembered (%v): pass --keyfile %s when unlocking\n", t.RememberErr, t.Keyfile)
	}
	if c.JSON {
		return printJSON(app.Stdout, api.TwoFactorEnabled{Enabled: true, Keyfile: t.Keyfile, Generated: t.Generated})
	}
	if t.Generated {
		fmt.Fprintf(app.Stdout, "generated a %d-byte keyfile at %s\n", session.NewKeyfileBytes, t.Keyfile)
	}
	fmt.Fprintf(app.Stdout, "two-factor unlock is on: the passphrase alone no longer opens the vault; the keyfile at %s is also needed (its location is remembered)\n", t.Keyfile)
	fmt.Fprintln(app.Stdout, "keep a copy of the keyfile somewhere safe: without it the vault cannot be opened")
	if session.InVaultDir(app.Vault, t.Keyfile) {
		fmt.Fprintf(app.Stderr, "warning: the keyfile is in the vault's directory, so a copy of that directory carries both factors: move it to separate media (a USB stick) and unlock once with --keyfile NEWPATH\n")
	} else if t.Default {
		fmt.Fprintln(app.Stdout, "it is outside the vault's directory; for the strongest setup move it to separate media (a USB stick) and unlock once with --keyfile NEWPATH")
	}
	return nil
}

// openByUnlock opens the vault with a given credential and nothing else
// (no encoder, no sync, no sweep): what changing key slots needs.
func (app *App) openByUnlock(u vaultfmt.Unlock) (*vault.Vault, error) {
	return vault.Open(app.Vault, app.vaultOptions(vault.Options{Unlock: u, Caller: app.Caller}))
}

// TwoFADisableCmd removes the keyfile factor.
type TwoFADisableCmd struct {
	PassphraseStdin bool `help:"Read the passphrase from the first line of stdin."`
	JSON            bool `help:"Print the result as JSON." name:"json"`
}

func (c *TwoFADisableCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	r := session.TerminalRequest(app.Vault, app.Keyfile, app.stdinIf(c.PassphraseStdin), true)
	t, err := session.DisableTwoFactor(app.Vault, r, app.openByUnlock)
	if err != nil {
		return err
	}
	if t.RememberErr != nil {
		fmt.Fprintf(app.Stderr, "two-factor unlock is off, but the config still names the keyfile: %v\n", t.RememberErr)
	}
	if c.JSON {
		return printJSON(app.Stdout, api.TwoFactorDisabled{})
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
		return printJSON(app.Stdout, api.TwoFactorStatus{Enabled: t.Enabled, Keyfile: t.Keyfile, KeyfilePresent: t.Present})
	}
	if !t.Enabled {
		fmt.Fprintln(app.Stdout, "two-factor unlock  off (turn it on with `compartment 2fa enable`)")
		return nil
	}
	fmt.Fprintln(app.Stdout, "two-factor unlock  on: passphrase and keyfile")
	switch {
	case t.Keyfile == "":
		fmt.Fprintln(app.Stdout, "keyfile            location not remembered: pass --keyfile PATH when unlocking")
	case t.Present:
		fmt.Fprintf(app.Stdout, "keyfile            %s (present)\n", t.Keyfile)
	default:
		fmt.Fprintf(app.Stdout, "keyfile            %s (MISSING: attach the media that holds it)\n", t.Keyfile)
	}
	return nil
}
