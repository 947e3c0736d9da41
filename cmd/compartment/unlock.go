package main

import (
	"io"
	"path/filepath"

	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// passphraseStdin is the flag of the commands that read the vault's
// passphrase, which they otherwise take from COMPARTMENT_PASSPHRASE or the
// terminal.
type passphraseStdin struct {
	PassphraseStdin bool `help:"Read the passphrase from the first line of stdin."`
}

// request is where the passphrase comes from: stdin when asked, else the
// environment or the terminal.
func (p passphraseStdin) request(app *App) session.Request {
	return session.TerminalRequest(app.Vault, app.Keyfile, app.stdinIf(p.PassphraseStdin), true)
}

// newPassphrase gets a passphrase for a new vault or a rekey by
// session.NewPassphrase: stdin when asked, else COMPARTMENT_PASSPHRASE
// (allowEnv: init only), else the terminal, twice.
func (app *App) newPassphrase(fromStdin, allowEnv bool) ([]byte, error) {
	return session.NewPassphrase(app.stdinIf(fromStdin), allowEnv)
}

// stdinIf is stdin when the passphrase is to be read there, else nil.
func (app *App) stdinIf(fromStdin bool) io.Reader {
	if fromStdin {
		return app.Stdin
	}
	return nil
}

// readKeyfile reads the keyfile named by --keyfile, else the one whose
// location the vault remembers (two-factor unlock), else none.
func (app *App) readKeyfile() ([]byte, error) {
	return session.KeyfileFor(app.Vault, app.Keyfile)
}

// credential finds a way to unlock the vault by the one rule of
// session.Obtain: keychain, unlock session, COMPARTMENT_PASSPHRASE (not
// after a lock until an explicit unlock), then a prompt on the terminal.
func (app *App) credential() (vaultfmt.Unlock, error) {
	key, err := session.Obtain(app.Vault, app.credentialRequest(true))
	app.keySource = key.Source
	return key.Unlock, err
}

// quietCredential is credential without the prompt.
func (app *App) quietCredential() (vaultfmt.Unlock, bool) {
	key, err := session.Obtain(app.Vault, app.credentialRequest(false))
	app.keySource = key.Source
	return key.Unlock, err == nil
}

// credentialRequest is what the CLI brings to session.Obtain and
// session.Passphrase: --keyfile, stdin when asked, and the terminal.
func (app *App) credentialRequest(prompt bool) session.Request {
	return session.TerminalRequest(app.Vault, app.Keyfile, nil, prompt)
}

// passphraseCredential asks for the passphrase (COMPARTMENT_PASSPHRASE,
// else the terminal), with the keyfile when the vault needs one. It skips
// the session: commands that change key slots use it to prove the
// passphrase.
func (app *App) passphraseCredential() (vaultfmt.Unlock, error) {
	r := app.credentialRequest(true)
	app.keySource = session.PassphraseSource(app.Vault, r, false)
	return session.PassphraseUnlock(app.Vault, r, false)
}

// openVaultByPassphrase opens the vault with the passphrase itself (and
// the keyfile), never a session: what commands that derive a key from the
// passphrase (sync init, rekey) start from. It returns the credential too.
func (app *App) openVaultByPassphrase() (*vault.Vault, vaultfmt.Unlock, error) {
	u, err := app.passphraseCredential()
	if err != nil {
		return nil, u, err
	}
	v, err := app.openVaultWith(u)
	return v, u, err
}

// openVault unlocks and loads the vault for a command.
func (app *App) openVault() (*vault.Vault, error) {
	u, err := app.credential()
	if err != nil {
		return nil, err
	}
	return app.openVaultWith(u)
}

// vaultOptions adds what every open of the CLI shares: where this machine
// remembers the newest state it has seen of each vault (rollback
// detection), and --accept-rollback.
func (app *App) vaultOptions(o vault.Options) vault.Options {
	o.StateDir = filepath.Join(compartmentHome(), "seen")
	o.AcceptRollback = app.AcceptRollback
	return o
}

// openVaultWith opens the vault with a given credential.
func (app *App) openVaultWith(u vaultfmt.Unlock) (*vault.Vault, error) {
	enc, err := app.encoder()
	if err != nil {
		return nil, err
	}
	v, err := vault.Open(app.Vault, app.vaultOptions(vault.Options{Unlock: u, Caller: app.Caller, Encoder: enc}))
	if err != nil {
		return nil, err
	}
	app.attachSync(v) // merge what other devices logged (cmd_sync.go)
	// The expiry sweep runs on every open, as it does when serving.
	// A vault on read-only media is only read: the sweep would be a write.
	if v.Config().Settings.ExpireMemories && !app.noSweep && !v.File().ReadOnly() {
		ids, err := v.Expire()
		render.Swept(app.Stderr, len(ids), err)
	}
	return v, nil
}
