package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/vaultfmt"
)

// The CLI's errors are one sentence a person can act on. Most are written
// where they arise; these rewrite the ones that come from the flag parser
// or from deep below, where the command line is not known.

// negativeFlag matches kong's error for a negative number after a flag,
// which it reads as a short flag ("--top-k -1").
var negativeFlag = regexp.MustCompile(`^--([a-z0-9-]+): expected (?:int|float|uint)\w* value but got "(-[^"]*)" \(short flag\)`)

// parseErrorSentence rewrites a command-line parse error for the command
// the user typed.
func parseErrorSentence(err error) string {
	msg := err.Error()
	cmd := ""
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if f := strings.Fields(pe.Context.Command()); len(f) > 0 {
			cmd = f[0]
		}
	}
	if m := negativeFlag.FindStringSubmatch(msg); m != nil {
		return negativeFlagSentence(m[1], m[2])
	}
	var args []string
	if pe != nil && pe.Context != nil {
		args = pe.Context.Args
	}
	if tok, ok := strings.CutPrefix(msg, "unknown flag "); ok {
		tok, _, _ = strings.Cut(tok, ",")
		tok = wholeArg(args, tok)
		switch cmd {
		case "store":
			return fmt.Sprintf("%q was read as a flag; to store text that starts with \"-\", put it last, after --: "+
				"compartment store --source \"from chat\" -- %q", tok, tok)
		case "search":
			return fmt.Sprintf("%q was read as a flag; to search for words that start with \"-\", put them last, after --: "+
				"compartment search -- %q", tok, tok)
		case "":
			return fmt.Sprintf("%s is not a flag compartment knows; `compartment --help` lists them", tok)
		}
		return fmt.Sprintf("%s is not a flag of `compartment %s`; `compartment %s --help` lists its flags", tok, cmd, cmd)
	}
	if cmd == "store" && strings.HasPrefix(msg, "missing flags: --source") && hasPositional(args) {
		return "store needs --source, where the fact came from (\"from chat\", \"read from pyproject.toml\"), e.g. " +
			"compartment store \"Priya prefers reviews before noon\" --source \"from chat\""
	}
	if cmd == "store" && (strings.HasPrefix(msg, "missing flags: --source") || strings.HasPrefix(msg, `expected "<text>"`)) {
		return "store needs the memory's text and where it came from, e.g. " +
			"compartment store \"Priya prefers reviews before noon\" --source \"from chat\""
	}
	return msg
}

// wholeArg is the argument a short-flag error came from: kong names only
// its first letter ("-f" for "-foo").
func wholeArg(args []string, tok string) string {
	if strings.HasPrefix(tok, "--") {
		return tok
	}
	for _, a := range args {
		if strings.HasPrefix(a, tok) {
			return a
		}
	}
	return tok
}

// hasPositional says whether args hold something after the command that
// is not a flag or a flag's value.
func hasPositional(args []string) bool {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i+1 < len(args)
		case strings.HasPrefix(a, "-"):
			if !strings.Contains(a, "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && takesValue(a) {
				i++
			}
		default:
			return true
		}
	}
	return false
}

// takesValue says whether a store flag is followed by its value.
func takesValue(flag string) bool {
	switch strings.TrimLeft(flag, "-") {
	case "json", "keep-both", "quarantined", "raw", "assert-offline", "accept-rollback", "h", "help":
		return false
	}
	return true
}

// negativeFlagSentence is the error for a flag given a negative number.
func negativeFlagSentence(flag, got string) string {
	switch flag {
	case "top-k":
		return fmt.Sprintf("--top-k takes a whole number of 1 or more, not %s; leave it out to get whatever is relevant", got)
	case "importance":
		return importanceSentence(got)
	}
	return fmt.Sprintf("--%s cannot be %s: give it a number of 0 or more (`compartment --help` says what each flag takes)", flag, got)
}

// importanceSentence refuses an importance outside 0..1, as MCP's
// memory_store does.
func importanceSentence(got string) string {
	return fmt.Sprintf("--importance must be between 0 and 1, not %s: 0.9 decisions and consent, 0.8 personal facts "+
		"and preferences, 0.75 machine and configuration, 0.55 other statements, 0.2 small talk", got)
}

// runErrorSentence rewrites an error a command returned, keeping its
// exit status. source is where the command's credential came from: a
// wrong COMPARTMENT_PASSPHRASE is fixed in the environment, not by typing.
func runErrorSentence(err error, vaultPath string, source session.Source) error {
	if !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		return err
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if source == session.SourceEnvironment {
		return &exitError{code: code, err: fmt.Errorf("wrong passphrase or keyfile for %s, so it stays locked: "+
			"COMPARTMENT_PASSPHRASE does not open it, so correct it (or unset it to be asked), and add --keyfile FILE "+
			"if the vault was created with one", vaultPath)}
	}
	return &exitError{code: code, err: fmt.Errorf("wrong passphrase or keyfile for %s, so it stays locked: "+
		"type the passphrase again (check Caps Lock), and add --keyfile FILE if the vault was created with one", vaultPath)}
}
