package session

// Reading a passphrase a person gives: from the first line of a pipe
// (--passphrase-stdin), from COMPARTMENT_PASSPHRASE, or typed on the
// terminal without echo. The rule for which of them an operation reads is
// [Passphrase]'s (and [Obtain]'s); this file only reads.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/compartment/compartment/vaultfmt"
)

// MinPassphrase is the shortest passphrase a new vault or a rekey accepts.
const MinPassphrase = 8

// ReadPassphraseLine reads the passphrase from the first line of r (the
// line ending is not part of it).
func ReadPassphraseLine(r io.Reader) ([]byte, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read passphrase from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("no passphrase on stdin")
	}
	return []byte(line), nil
}

// PromptTerminal asks on the controlling terminal without echo. With no
// terminal to ask on it returns the locked error that says how else to
// unlock.
func PromptTerminal(prompt string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, errNothingOffered
	}
	defer tty.Close()
	if !term.IsTerminal(int(tty.Fd())) {
		return nil, errNothingOffered
	}
	fmt.Fprint(tty, prompt)
	pass, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	return pass, nil
}

// TerminalRequest is the [Request] of a command run by a person: the
// keyfile named on its command line, the first line of stdin when it was
// asked to read the passphrase there, and (prompt) the terminal.
func TerminalRequest(vaultPath, keyfile string, stdin io.Reader, prompt bool) Request {
	r := Request{Keyfile: keyfile, Stdin: stdin}
	if prompt {
		r.Prompt = func() ([]byte, error) { return PromptTerminal(fmt.Sprintf("Passphrase for %s: ", vaultPath)) }
	}
	return r
}

// PassphraseUnlock is what opens the vault by its passphrase (never a
// session): the keyfile when it needs one, and [Passphrase].
func PassphraseUnlock(vaultPath string, r Request, unlocking bool) (vaultfmt.Unlock, error) {
	keyfile, err := KeyfileFor(vaultPath, r.Keyfile)
	if err != nil {
		return vaultfmt.Unlock{}, err
	}
	pass, err := Passphrase(vaultPath, r, unlocking)
	if err != nil {
		return vaultfmt.Unlock{}, err
	}
	return vaultfmt.Unlock{Passphrase: pass, Keyfile: keyfile}, nil
}

// NewPassphrase gets the passphrase of a new vault or a rekey: the first
// line of stdin when given, else COMPARTMENT_PASSPHRASE when allowEnv (a
// new vault only), else the terminal, twice. It refuses one shorter than
// [MinPassphrase].
func NewPassphrase(stdin io.Reader, allowEnv bool) ([]byte, error) {
	var pass []byte
	var err error
	switch env := os.Getenv(EnvPassphrase); {
	case stdin != nil:
		pass, err = ReadPassphraseLine(stdin)
	case allowEnv && env != "":
		pass = []byte(env)
	default:
		if pass, err = PromptTerminal("New passphrase: "); err != nil {
			return nil, err
		}
		again, err := PromptTerminal("Repeat it: ")
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
	if len([]rune(string(pass))) < MinPassphrase {
		return nil, fmt.Errorf("the passphrase is too short: use at least %d characters (a few unrelated words work well)", MinPassphrase)
	}
	return pass, nil
}

// WithKeyfile adds the second factor to a passphrase that came without
// one (memory_unlock, the environment): the keyfile named on the command
// line (explicit), else the one the vault remembers. A master key (a
// session, the keychain) needs none and is returned as it is.
func WithKeyfile(vaultPath, explicit string, u vaultfmt.Unlock) (vaultfmt.Unlock, error) {
	if len(u.Passphrase) == 0 || len(u.Keyfile) > 0 {
		return u, nil
	}
	kf, err := KeyfileFor(vaultPath, explicit)
	if err != nil {
		return u, err
	}
	u.Keyfile = kf
	return u, nil
}

// OtherPassphrase gets the passphrase of something that is not this
// vault (a sync folder another device made): the first line of stdin when
// given, else COMPARTMENT_PASSPHRASE (one passphrase for all of a user's
// vaults is the common case), else the terminal, asking with prompt.
func OtherPassphrase(stdin io.Reader, prompt string) ([]byte, error) {
	if stdin != nil {
		return ReadPassphraseLine(stdin)
	}
	if env := os.Getenv(EnvPassphrase); env != "" {
		return []byte(env), nil
	}
	return PromptTerminal(prompt)
}
