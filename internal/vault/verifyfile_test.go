package vault

import (
	"crypto/ed25519"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestVerifyFile: without a credential only the plaintext is checked and
// no audit is reported; with one the audit chain is; a signature by the
// user's own identity key says so, and one by another key does not.
func TestVerifyFile(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	h.store(v, StoreRequest{Text: "The VPN gateway is vpn.example.org"})
	mine, other := t.TempDir(), t.TempDir()
	key, err := LoadIdentity(mine)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Sign(key); err != nil {
		t.Fatal(err)
	}
	v.Close()

	locked, err := VerifyFile(h.path, nil, mine, Options{})
	if err != nil || !locked.OK || locked.Audit != nil || locked.File.TagsChecked {
		t.Fatalf("without a credential: %+v %v", locked, err)
	}
	u := vaultfmt.Unlock{Passphrase: testPass}
	open, err := VerifyFile(h.path, &u, mine, h.opts("user"))
	if err != nil || !open.OK || open.Audit == nil || !open.Audit.OK || !open.File.TagsChecked {
		t.Fatalf("with the passphrase: %+v %v", open, err)
	}
	if !open.SignerIsYou || open.Signer != Fingerprint(key.Public().(ed25519.PublicKey)) {
		t.Errorf("signed with the user's key: signer %q, is you %v", open.Signer, open.SignerIsYou)
	}
	if theirs, err := VerifyFile(h.path, nil, other, Options{}); err != nil || theirs.SignerIsYou || theirs.Signer != open.Signer {
		t.Errorf("checked by someone else: %+v %v", theirs, err)
	}
	if _, err := VerifyFile(h.path+".missing", nil, mine, Options{}); err == nil {
		t.Error("a missing file verified")
	}
}
