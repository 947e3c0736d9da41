package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// VerifyCmd checks the vault file: structure, every seal when a credential
// is at hand, the audit chain, and the signature if present.
type VerifyCmd struct {
	JSON bool `help:"Print the report as JSON." name:"json"`
}

// verifyOutput is the report verify prints (--json prints it as is).
type verifyOutput = vault.FileCheck

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
		if err := printJSON(app.Stdout, out); err != nil {
			return err
		}
	} else {
		printVerify(app, out)
	}
	if !out.OK {
		return &exitError{code: 1, err: fmt.Errorf("verify %s: problems found (see above)", app.Vault)}
	}
	return nil
}

func printVerify(app *App, out verifyOutput) {
	w := app.Stdout
	r := out.File
	fmt.Fprintf(w, "structure      %d frames, format version %d\n", r.Frames, r.Header.Version)
	if r.TagsChecked {
		fmt.Fprintln(w, "seals          every sealed item opened and authenticated")
	} else {
		fmt.Fprintln(w, "seals          not checked (locked: set COMPARTMENT_PASSPHRASE or unlock first)")
	}
	switch {
	case !r.Signed:
		fmt.Fprintln(w, "signature      none (sign with `compartment lock --sign`)")
	case !r.SignatureOK:
		fmt.Fprintf(w, "signature      INVALID (signer %s)\n", out.Signer)
	case !r.SignedCurrent:
		fmt.Fprintf(w, "signature      valid for an earlier state; written to since (signer %s)\n", out.Signer)
	default:
		who := "not your key"
		if out.SignerIsYou {
			who = "your identity key"
		}
		fmt.Fprintf(w, "signature      valid (signer %s, %s)\n", out.Signer, who)
	}
	if r.Torn != nil {
		fmt.Fprintf(w, "torn tail      a write interrupted by a crash (%d bytes at offset %d): not acknowledged, dropped on open and cut by the next write\n", r.Torn.Bytes, r.Torn.Offset)
	}
	if out.Audit != nil {
		if out.Audit.OK {
			fmt.Fprintf(w, "audit chain    %d entries, intact\n", out.Audit.Entries)
		} else {
			fmt.Fprintf(w, "audit chain    %d breaks, %d items without an entry (run `compartment audit verify` for details)\n", len(out.Audit.Breaks), len(out.Audit.Unaudited))
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem        %s\n", p)
	}
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
