package vaultfmt

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"testing"

	"golang.org/x/crypto/argon2"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKnownAnswers pins every primitive the format uses to a published
// vector, so a library change that altered any of them would be caught.
func TestKnownAnswers(t *testing.T) {
	t.Run("XChaCha20-Poly1305 draft-irtf-cfrg-xchacha A.3.1", func(t *testing.T) {
		key := unhex(t, "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
		nonce := unhex(t, "404142434445464748494a4b4c4d4e4f5051525354555657")
		aad := unhex(t, "50515253c0c1c2c3c4c5c6c7")
		pt := []byte("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.")
		want := unhex(t, "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"+
			"c0875924c1c7987947deafd8780acf49")
		sealed, err := seal(nil, key, bytes.NewReader(nonce), pt, aad)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sealed[:nonceSize], nonce) || !bytes.Equal(sealed[nonceSize:], want) {
			t.Fatalf("seal = %x", sealed)
		}
		got, err := open(key, sealed, aad)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("open = %q, %v", got, err)
		}
	})
	t.Run("Argon2id phc-winner-argon2 reference", func(t *testing.T) {
		got := argon2.IDKey([]byte("password"), []byte("somesalt"), 2, 1<<16, 1, 32)
		if want := unhex(t, "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7"); !bytes.Equal(got, want) {
			t.Fatalf("argon2id = %x", got)
		}
	})
	t.Run("HKDF-SHA256 RFC 5869 case 1", func(t *testing.T) {
		got, err := hkdf.Key(sha256.New, bytes.Repeat([]byte{0x0b}, 22), unhex(t, "000102030405060708090a0b0c"), string(unhex(t, "f0f1f2f3f4f5f6f7f8f9")), 42)
		want := unhex(t, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("hkdf = %x, %v", got, err)
		}
	})
	t.Run("HMAC-SHA256 RFC 4231 case 1", func(t *testing.T) {
		m := hmac.New(sha256.New, bytes.Repeat([]byte{0x0b}, 20))
		m.Write([]byte("Hi There"))
		if got, want := m.Sum(nil), unhex(t, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"); !bytes.Equal(got, want) {
			t.Fatalf("hmac = %x", got)
		}
	})
	t.Run("Ed25519 RFC 8032 test 1", func(t *testing.T) {
		priv := ed25519.NewKeyFromSeed(unhex(t, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
		if got := priv.Public().(ed25519.PublicKey); !bytes.Equal(got, unhex(t, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")) {
			t.Fatalf("public key = %x", got)
		}
		want := unhex(t, "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
		if got := ed25519.Sign(priv, nil); !bytes.Equal(got, want) {
			t.Fatalf("signature = %x", got)
		}
	})
	t.Run("CRC-32C check value", func(t *testing.T) {
		if got := crc32.Checksum([]byte("123456789"), crcTable); got != 0xE3069283 {
			t.Fatalf("crc32c = %08x", got)
		}
	})
}

// TestSealBitFlips: flipping any single bit of the key, the nonce, the AAD
// or the ciphertext (tag included) makes open fail and return nothing.
func TestSealBitFlips(t *testing.T) {
	key := randomBody(keySize)
	aad := aadFrame(roleJournal, [16]byte{1, 2, 3}, 7, 42)
	pt := []byte("one short claim with a source and a date")
	sealed, err := seal(nil, key, rand.Reader, pt, aad)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := open(key, sealed, aad); err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("clean open: %q, %v", got, err)
	}
	flip := func(b []byte, bit int) []byte {
		c := bytes.Clone(b)
		c[bit/8] ^= 1 << (bit % 8)
		return c
	}
	fail := func(what string, bit int, k, s, a []byte) {
		t.Helper()
		if got, err := open(k, s, a); err == nil || got != nil {
			t.Fatalf("%s bit %d flipped: open succeeded", what, bit)
		}
	}
	for bit := 0; bit < 8*len(key); bit++ {
		fail("key", bit, flip(key, bit), sealed, aad)
	}
	for bit := 0; bit < 8*len(aad); bit++ {
		fail("aad", bit, key, sealed, flip(aad, bit))
	}
	for bit := 0; bit < 8*len(sealed); bit++ {
		what := "ciphertext"
		if bit < 8*nonceSize {
			what = "nonce"
		} else if bit >= 8*(len(sealed)-tagSize) {
			what = "tag"
		}
		fail(what, bit, key, flip(sealed, bit), aad)
	}
	fail("truncated", 0, key, sealed[:len(sealed)-1], aad)
	fail("empty", 0, key, nil, aad)
}

// TestRolesSeparate: the same bytes sealed in one role do not open in
// another, nor at another position, epoch or vault.
func TestRolesSeparate(t *testing.T) {
	key := randomBody(keySize)
	vid := [16]byte{9}
	base := aadFrame(rolePayload, vid, 3, 5)
	sealed, _ := seal(nil, key, rand.Reader, []byte("x"), base)
	for name, aad := range map[string][]byte{
		"role":  aadFrame(roleJournal, vid, 3, 5),
		"epoch": aadFrame(rolePayload, vid, 4, 5),
		"seq":   aadFrame(rolePayload, vid, 3, 6),
		"vault": aadFrame(rolePayload, [16]byte{8}, 3, 5),
		"item":  aadItem(roleItemBody, vid, ID{}, 0),
	} {
		if _, err := open(key, sealed, aad); err == nil {
			t.Fatalf("opened with a different %s", name)
		}
	}
}

// TestOpenZeroesOutput: a failed open leaves no plaintext behind in the
// buffer it decrypted into.
func TestOpenZeroesOutput(t *testing.T) {
	key := randomBody(keySize)
	pt := bytes.Repeat([]byte("secret "), 20)
	sealed, _ := seal(nil, key, rand.Reader, pt, nil)
	sealed[len(sealed)-1] ^= 1
	buf := bytes.Repeat([]byte{0xEE}, len(pt))
	got, err := openTo(buf[:0], key, sealed, nil)
	if err == nil || got != nil {
		t.Fatal("open of a damaged tag succeeded")
	}
	if !allZero(buf) {
		t.Fatalf("output buffer not zeroed: %x", buf)
	}
}

// TestDeriveKeys: the three subkeys differ from each other and from the
// master key, and depend on the vault id.
func TestDeriveKeys(t *testing.T) {
	master := randomBody(keySize)
	a, err := deriveKeys(master, [16]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := deriveKeys(master, [16]byte{2})
	all := [][]byte{a.master[:], a.frame[:], a.mac[:], a.wrap[:], b.frame[:], b.mac[:], b.wrap[:]}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if bytes.Equal(all[i], all[j]) {
				t.Fatalf("keys %d and %d are equal", i, j)
			}
		}
	}
	if _, err := deriveKeys(master[:31], [16]byte{}); err == nil {
		t.Fatal("short master key accepted")
	}
}

// TestKeyfileIsCryptographic: the keyfile changes the derived slot key.
func TestKeyfileIsCryptographic(t *testing.T) {
	salt := randomBody(16)
	p := KDFParams{Time: 1, MemoryKiB: 64, Threads: 1}
	a := slotKEK(SlotPassphraseKeyfile, p, salt, testPass, []byte("keyfile one"))
	b := slotKEK(SlotPassphraseKeyfile, p, salt, testPass, []byte("keyfile two"))
	c := slotKEK(SlotPassphrase, p, salt, testPass, nil)
	if bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Fatal("keyfile does not change the slot key")
	}
}
