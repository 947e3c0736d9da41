package release

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKey(t testing.TB, dir string) (ed25519.PrivateKey, ed25519.PublicKey) {
	t.Helper()
	path := filepath.Join(dir, "release.key")
	pub, err := GenerateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := LoadPrivateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := LoadPublicKey(path + ".pub"); err != nil || !got.Equal(pub) {
		t.Fatalf("public key file: %v %v", got, err)
	}
	if _, err := GenerateKey(path); err == nil {
		t.Fatal("GenerateKey overwrote an existing key")
	}
	return priv, pub
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sampleSig() BinarySig {
	return BinarySig{Version: "v1.2.3", Target: "linux/arm64", VaultFormat: 1}
}

// signedBinary writes a small file and signs it with a new key.
func signedBinary(t *testing.T) (ed25519.PrivateKey, ed25519.PublicKey, string, []byte) {
	t.Helper()
	dir := t.TempDir()
	priv, pub := testKey(t, dir)
	bin := filepath.Join(dir, "compartment")
	writeFile(t, bin, []byte("a binary"))
	sig, err := SignBinary(priv, bin, sampleSig())
	if err != nil {
		t.Fatal(err)
	}
	return priv, pub, bin, sig
}

// TestBinarySignature: a signature verifies for the file it was made for,
// by a trusted key, and says what was signed.
func TestBinarySignature(t *testing.T) {
	_, pub, bin, sig := signedBinary(t)
	got, err := VerifyBinary(bin, sig, []ed25519.PublicKey{pub})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != "v1.2.3" || got.Target != "linux/arm64" || got.VaultFormat != 1 || got.Size != 8 || !got.Key.Equal(pub) {
		t.Fatalf("got %+v", got)
	}

	// Another trusted key's world: the signer is untrusted.
	_, other := testKey(t, t.TempDir())
	if _, err := VerifyBinary(bin, sig, []ed25519.PublicKey{other}); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("untrusted signer: %v", err)
	}
	if _, err := VerifyBinary(bin, sig, nil); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("no trusted keys: %v", err)
	}
	// A different binary under the same signature.
	writeFile(t, bin, []byte("a binarz"))
	if _, err := VerifyBinary(bin, sig, []ed25519.PublicKey{pub}); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("changed binary: %v", err)
	}
}

// TestSignatureTamper flips every bit of a signature file in turn: each
// change must be refused, never accepted as some other valid statement.
func TestSignatureTamper(t *testing.T) {
	priv, pub, bin, sig := signedBinary(t)
	sums := []byte("0000000000000000000000000000000000000000000000000000000000000000  x.tar.gz\n")
	ssig := SignSums(priv, sums)
	keys := []ed25519.PublicKey{pub}
	eachBitFlipped(t, "binary signature", sig, func(b []byte) bool {
		_, err := VerifyBinary(bin, b, keys)
		return err != nil
	})
	eachBitFlipped(t, "sums signature", ssig, func(b []byte) bool {
		_, err := VerifySums(sums, b, keys)
		return err != nil
	})
	eachBitFlipped(t, "SHA256SUMS", sums, func(b []byte) bool {
		_, err := VerifySums(b, ssig, keys)
		return errors.Is(err, ErrBadSignature)
	})
	// The two kinds cannot stand in for each other.
	if _, err := VerifySums(sums, sig, keys); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("binary signature accepted for sums: %v", err)
	}
	if _, err := VerifyBinary(bin, ssig, keys); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("sums signature accepted for a binary: %v", err)
	}
}

// eachBitFlipped calls refused with a copy of data for every bit flipped
// in turn and fails the test when one is not refused.
func eachBitFlipped(t *testing.T, what string, data []byte, refused func([]byte) bool) {
	t.Helper()
	for i := range len(data) * 8 {
		b := bytes.Clone(data)
		b[i/8] ^= 1 << (i % 8)
		if !refused(b) {
			t.Fatalf("%s with bit %d flipped was accepted", what, i)
		}
	}
}

// TestSignRefusesBadFields: a version or target that would break the line
// format is refused at signing time.
func TestSignRefusesBadFields(t *testing.T) {
	dir := t.TempDir()
	priv, _ := testKey(t, dir)
	bin := filepath.Join(dir, "b")
	writeFile(t, bin, []byte("x"))
	for _, s := range []BinarySig{{Version: "v1\nkey x", Target: "a/b"}, {Version: "v1", Target: ""}, {Version: "v 1", Target: "a/b"}} {
		if _, err := SignBinary(priv, bin, s); err == nil {
			t.Fatalf("signed %+v", s)
		}
	}
}

func TestParseSums(t *testing.T) {
	h := strings.Repeat("ab", 32)
	good := FormatSums(map[string]string{"b/x": h, "a.tar.gz": h})
	if want := h + "  a.tar.gz\n" + h + "  b/x\n"; string(good) != want {
		t.Fatalf("FormatSums = %q", good)
	}
	m, err := ParseSums(good)
	if err != nil || len(m) != 2 || m["b/x"] != h {
		t.Fatalf("ParseSums = %v, %v", m, err)
	}
	for _, bad := range []string{
		h + "  ../etc/passwd\n", h + "  /abs\n", h + "  a/../../b\n", h + " a\n",
		strings.ToUpper(h) + "  a\n", h + "  a\n" + h + "  a\n", "short  a\n",
	} {
		if _, err := ParseSums([]byte(bad)); err == nil {
			t.Fatalf("ParseSums accepted %q", bad)
		}
	}
}

// TestTrustedKeysFile: the committed list parses, so a key added to it is
// really trusted, and a build key joins it.
func TestTrustedKeysFile(t *testing.T) {
	for i, line := range strings.Split(trustedKeysFile, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, err := ParseKey(line); err != nil {
			t.Fatalf("trusted_keys.txt line %d: %v", i+1, err)
		}
	}
	before := len(TrustedKeys())
	_, pub := testKey(t, t.TempDir())
	old := buildKey
	buildKey = FormatKey(pub)
	defer func() { buildKey = old }()
	keys := TrustedKeys()
	if len(keys) != before+1 || !keys[len(keys)-1].Equal(pub) {
		t.Fatalf("build key not trusted: %d keys, want %d", len(keys), before+1)
	}
}

// FuzzOpenSignature: no input makes the parser panic or accept a
// signature that does not verify under the key it names.
func FuzzOpenSignature(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	f.Add(SignSums(priv, []byte("x")))
	f.Add(seal(priv, binaryKind, []string{"v1", "linux/amd64", "1", strings.Repeat("0", 64), "1", FormatKey(priv.Public().(ed25519.PublicKey))}, binaryFields))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []struct {
			kind  string
			names []string
		}{{binaryKind, binaryFields}, {sumsKind, sumsFields}} {
			fields, pub, err := open(data, k.kind, k.names)
			if err != nil {
				continue
			}
			text := string(data)
			last := text[strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")+1:]
			if !strings.HasPrefix(last, "sig ") || len(fields) != len(k.names) || pub == nil {
				t.Fatalf("accepted a malformed file: %q", data)
			}
		}
	})
}

func FuzzParseSums(f *testing.F) {
	f.Add([]byte(strings.Repeat("ab", 32) + "  a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseSums(data)
		if err != nil {
			return
		}
		for name := range m {
			if !safeName(name) {
				t.Fatalf("unsafe name %q accepted", name)
			}
		}
	})
}
