package vault

import (
	"crypto/ed25519"
	"fmt"

	"github.com/compartment/compartment/vaultfmt"
)

// FileCheck is what checking a vault file finds: its structure (and every
// seal, when a credential was at hand), the signature and whose key made
// it, and the audit chain (only with a credential).
type FileCheck struct {
	OK          bool                  `json:"ok"`
	File        vaultfmt.VerifyReport `json:"file"`
	Signer      string                `json:"signer,omitempty"`
	SignerIsYou bool                  `json:"signer_is_you,omitempty"`
	Audit       *AuditReport          `json:"audit,omitempty"`
}

// VerifyFile checks the vault at path. With u it also opens every seal
// and the vault itself (with opts, whose Unlock it sets) to check the
// audit chain; without, only what the plaintext shows. identityDir holds
// the user's identity key, to say whether the signer is the user.
func VerifyFile(path string, u *vaultfmt.Unlock, identityDir string, opts Options) (FileCheck, error) {
	rep, err := vaultfmt.Verify(path, u)
	if err != nil {
		return FileCheck{}, fmt.Errorf("verify %s: %w", path, err)
	}
	out := FileCheck{File: rep, OK: len(rep.Problems) == 0 && (!rep.Signed || rep.SignatureOK)}
	if sig := rep.Header.Signature; sig != nil {
		out.Signer = Fingerprint(sig.PublicKey)
		if id, err := LoadIdentity(identityDir); err == nil {
			out.SignerIsYou = id.Public().(ed25519.PublicKey).Equal(sig.PublicKey)
		}
	}
	if u == nil {
		return out, nil
	}
	opts.Unlock = *u
	v, err := Open(path, opts)
	if err != nil {
		return FileCheck{}, err
	}
	a, err := v.AuditVerify()
	v.Close()
	if err != nil {
		return FileCheck{}, err
	}
	out.Audit = &a
	out.OK = out.OK && a.OK
	return out, nil
}
