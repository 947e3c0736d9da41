package vaultfmt

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"
)

func TestSignAndVerify(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "signed one"), put(2, "signed two"))
	rep, err := Verify(path, nil)
	if err != nil || rep.Signed || rep.TagsChecked || rep.Frames != 3 || rep.JournalFrames != 2 {
		t.Fatalf("unsigned verify: %+v, %v", rep, err)
	}
	pub, priv, _ := ed25519.GenerateKey(nil)
	if err := v.Sign(priv); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(path, nil)
	if err != nil || !rep.Signed || !rep.SignatureOK || !rep.SignedCurrent || rep.Header.Signature == nil ||
		!bytes.Equal(rep.Header.Signature.PublicKey, pub) || rep.JournalFrames != 0 {
		t.Fatalf("signed verify: %+v, %v", rep, err)
	}
	rep, err = Verify(path, &Unlock{Passphrase: testPass})
	if err != nil || !rep.TagsChecked || rep.Items != 2 || !rep.SignedCurrent {
		t.Fatalf("verify with unlock: %+v, %v", rep, err)
	}
	if sig := v.Header().Signature; sig == nil || !bytes.Equal(sig.PublicKey, pub) {
		t.Fatalf("Header().Signature = %+v", sig)
	}

	// Appending after signing: the signature covers an earlier state, which
	// is not tampering.
	mustAppend(t, v, c, put(3, "after signing"))
	rep, err = Verify(path, &Unlock{Passphrase: testPass})
	if err != nil || !rep.SignatureOK || rep.SignedCurrent || rep.Items != 3 || len(rep.Problems) != 0 {
		t.Fatalf("verify after append: %+v, %v", rep, err)
	}
	// The signed vault reopens normally.
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)

	// A compaction drops the now-stale signature instead of keeping one
	// that no longer matches.
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(path, nil)
	if err != nil || rep.Signed {
		t.Fatalf("verify after compaction: %+v, %v", rep, err)
	}
}

// TestSignatureTamper: changing any byte the manifest covers, with the
// header CRC fixed up so only the signature can tell, fails verification
// without a credential.
func TestSignatureTamper(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"))
	_, priv, _ := ed25519.GenerateKey(nil)
	if err := v.Sign(priv); err != nil {
		t.Fatal(err)
	}
	v.Close()
	orig := readFile(t, path)
	l := layoutOf(t, orig)
	sigAt := int(l.headerLen) - trailerSize - signatureExtSize
	for name, off := range map[string]int{
		"created": 33, "epoch": 40, "slot salt": fixedHeaderSize + 12, "pin": fixedHeaderSize + slotSize + 5,
		"public key": sigAt + 3, "signature": sigAt + 40, "payload frame": int(l.payload[0].off) + 20,
	} {
		b := bytes.Clone(orig)
		b[off] ^= 0x10
		fixCRC(b)
		writeFile(t, path, b)
		rep, err := Verify(path, nil)
		var ce *CorruptError
		if name == "payload frame" {
			// The structure is intact (the length was not touched), so only
			// the signature can see this one without a key.
			if !errors.As(err, &ce) || ce.Region != "signature" {
				t.Fatalf("%s: %v", name, err)
			}
		} else if !errors.As(err, &ce) || ce.Region != "signature" || rep.SignatureOK || len(rep.Problems) == 0 {
			t.Fatalf("%s changed: rep %+v, err %v", name, rep, err)
		}
	}
}

func TestVerifyFindsDamage(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	l := layoutOf(t, orig)
	b := bytes.Clone(orig)
	b[l.journal[1].off+30] ^= 1 // inside a sealed body: only a tag check sees it
	writeFile(t, path, b)
	if rep, err := Verify(path, nil); err != nil || rep.Frames != 8 {
		t.Fatalf("structure-only verify: %+v, %v", rep, err)
	}
	rep, err := Verify(path, &Unlock{Passphrase: testPass})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Region != "journal" || ce.Offset != l.journal[1].off || len(rep.Problems) != 1 {
		t.Fatalf("verify with unlock: %+v, %v", rep, err)
	}
	b = bytes.Clone(orig)
	b[l.journal[1].off+1] ^= 1 // a length byte: structure sees it
	writeFile(t, path, b)
	if _, err := Verify(path, nil); !errors.As(err, &ce) || ce.Frame != 1 {
		t.Fatalf("structure-only verify of a bad length: %v", err)
	}
	writeFile(t, path, orig[:len(orig)-3])
	if rep, err := Verify(path, nil); err != nil || rep.Torn == nil {
		t.Fatalf("torn tail: %+v, %v", rep, err)
	}
	_, err = Verify(path, &Unlock{Passphrase: []byte("wrong")})
	wantErr(t, err, ErrWrongPassphrase, "verify with a wrong passphrase")
}
