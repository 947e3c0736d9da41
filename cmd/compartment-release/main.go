// Command compartment-release is the release signer used by `make
// release` (scripts/release.sh): it makes a release key, signs each binary
// (the compartment.sig beside it) and signs the SHA256SUMS list. It is a
// tool for whoever cuts a release and is never shipped; RELEASING.md says
// how the key is kept.
//
//	compartment-release keygen KEYFILE
//	compartment-release pubkey KEYFILE
//	compartment-release sign-binary -key KEYFILE -version V -target OS/ARCH BINARY
//	compartment-release sign-sums -key KEYFILE SHA256SUMS
//	compartment-release verify-sums -pub PUBFILE SHA256SUMS
//	compartment-release install-text [-panel] GOOS
package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/vaultfmt"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "compartment-release: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: compartment-release keygen|pubkey|sign-binary|sign-sums|verify-sums|install-text [flags] FILE")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	key := fs.String("key", "", "private key file")
	pubFile := fs.String("pub", "", "public key file")
	version := fs.String("version", "", "version of the binary")
	target := fs.String("target", "", "GOOS/GOARCH of the binary")
	panel := fs.Bool("panel", false, "install-text: the archive holds compartment-panel too")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	arg := func() (string, error) {
		if fs.NArg() != 1 {
			return "", fmt.Errorf("%s takes one file argument", args[0])
		}
		return fs.Arg(0), nil
	}
	file, err := arg()
	if err != nil {
		return err
	}
	switch args[0] {
	case "keygen":
		pub, err := release.GenerateKey(file)
		if err != nil {
			return err
		}
		fmt.Println(release.FormatKey(pub))
	case "pubkey":
		priv, err := release.LoadPrivateKey(file)
		if err != nil {
			return err
		}
		fmt.Println(release.FormatKey(priv.Public().(ed25519.PublicKey)))
	case "sign-binary":
		priv, err := release.LoadPrivateKey(*key)
		if err != nil {
			return err
		}
		sig, err := release.SignBinary(priv, file, release.BinarySig{Version: *version, Target: *target,
			VaultFormat: vaultfmt.FormatVersion})
		if err != nil {
			return err
		}
		return os.WriteFile(file+".sig", sig, 0o644)
	case "sign-sums":
		priv, err := release.LoadPrivateKey(*key)
		if err != nil {
			return err
		}
		sums, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		return os.WriteFile(file+".sig", release.SignSums(priv, sums), 0o644)
	case "install-text":
		fmt.Print(release.ArchiveInstallText(file, *panel))
	case "verify-sums":
		pub, err := release.LoadPublicKey(*pubFile)
		if err != nil {
			return err
		}
		sums, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sig, err := os.ReadFile(file + ".sig")
		if err != nil {
			return err
		}
		if _, err := release.VerifySums(sums, sig, []ed25519.PublicKey{pub}); err != nil {
			return err
		}
		fmt.Printf("%s: signature good (key %s)\n", file, release.FormatKey(pub))
	default:
		return fmt.Errorf("unknown subcommand %q", args[0])
	}
	return nil
}
