package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// minPassphrase is the shortest passphrase init and rekey accept.
const minPassphrase = 8

// errNoCredential says how to unlock when nothing was offered.
var errNoCredential = fmt.Errorf("%w (or set COMPARTMENT_PASSPHRASE for scripts)", vault.ErrLocked)

// readPassphraseStdin reads one line from stdin (for --passphrase-stdin).
func (app *App) readPassphraseStdin() ([]byte, error) {
	line, err := bufio.NewReader(app.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read passphrase from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("no passphrase on stdin")
	}
	return []byte(line), nil
}

// promptPassphrase asks on the terminal without echo. It fails when there
// is no terminal to ask on.
func promptPassphrase(prompt string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, errNoCredential
	}
	defer tty.Close()
	if !term.IsTerminal(int(tty.Fd())) {
		return nil, errNoCredential
	}
	fmt.Fprint(tty, prompt)
	pass, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	return pass, nil
}

// newPassphrase gets a passphrase for a new vault or a rekey: stdin when
// asked, else COMPARTMENT_PASSPHRASE (env, init only), else the terminal,
// twice.
func (app *App) newPassphrase(fromStdin, allowEnv bool) ([]byte, error) {
	var pass []byte
	var err error
	switch env := os.Getenv("COMPARTMENT_PASSPHRASE"); {
	case fromStdin:
		pass, err = app.readPassphraseStdin()
	case allowEnv && env != "":
		pass = []byte(env)
	default:
		pass, err = promptPassphrase("New passphrase: ")
		if err != nil {
			return nil, err
		}
		again, err := promptPassphrase("Repeat it: ")
		if err != nil {
			return nil, err
		}
		if string(again) != string(pass) {
			return nil, errors.New("the two passphrases differ; nothing was changed")
		}
	}
	if err != nil {
		return nil, err
	}
	if len([]rune(string(pass))) < minPassphrase {
		return nil, fmt.Errorf("the passphrase is too short: use at least %d characters (a few unrelated words work well)", minPassphrase)
	}
	return pass, nil
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
	return key.Unlock, err
}

// quietCredential is credential without the prompt.
func (app *App) quietCredential() (vaultfmt.Unlock, bool) {
	key, err := session.Obtain(app.Vault, app.credentialRequest(false))
	return key.Unlock, err == nil
}

// credentialRequest is what the CLI brings to session.Obtain.
func (app *App) credentialRequest(prompt bool) session.Request {
	r := session.Request{Keyfile: app.Keyfile}
	if prompt {
		r.Prompt = func() ([]byte, error) {
			return promptPassphrase(fmt.Sprintf("Passphrase for %s: ", app.Vault))
		}
	}
	return r
}

// passphraseCredential asks for the passphrase (COMPARTMENT_PASSPHRASE,
// else the terminal), with the keyfile when the vault needs one. It skips
// the session: commands that change key slots use it to prove the
// passphrase.
func (app *App) passphraseCredential() (vaultfmt.Unlock, error) {
	keyfile, err := app.readKeyfile()
	if err != nil {
		return vaultfmt.Unlock{}, err
	}
	pass, err := session.Passphrase(app.Vault, app.credentialRequest(true), false)
	if err != nil {
		return vaultfmt.Unlock{}, err
	}
	return vaultfmt.Unlock{Passphrase: pass, Keyfile: keyfile}, nil
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
		if ids, err := v.Expire(); err != nil {
			fmt.Fprintf(app.Stderr, "compartment: expiry sweep: %v\n", err)
		} else if len(ids) > 0 {
			fmt.Fprintf(app.Stderr, "compartment: removed %d expired memories\n", len(ids))
		}
	}
	return v, nil
}
