package release

// Signature files are short UTF-8 text, one "name value" field per line
// after a first line that names the kind and version, ending with the key
// and the signature:
//
//	compartment binary signature v1      compartment sums signature v1
//	version v0.4.0                        sha256 <64 hex: SHA-256 of SHA256SUMS>
//	target linux/amd64                    key <64 hex: Ed25519 public key>
//	vault-format 1                        sig <128 hex>
//	sha256 <64 hex: SHA-256 of the binary>
//	size 12345678
//	key <64 hex: Ed25519 public key>
//	sig <128 hex>
//
// The signature is pure Ed25519 over every byte before the "sig" line
// (first line and key included), so the kind line separates the two
// domains. Fields appear exactly once, in this order; anything else is
// refused. Part of the format: do not change.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

const (
	binaryKind = "compartment binary signature v1"
	sumsKind   = "compartment sums signature v1"
	// maxSigFile bounds what is read as a signature file.
	maxSigFile = 4096
)

var (
	binaryFields = []string{"version", "target", "vault-format", "sha256", "size", "key"}
	sumsFields   = []string{"sha256", "key"}
)

// BinarySig is what a binary's signature says about it.
type BinarySig struct {
	Version     string // the build's version string
	Target      string // GOOS/GOARCH
	VaultFormat int    // newest vault format version the binary reads and writes
	SHA256      string // of the binary, lowercase hex
	Size        int64
	Key         ed25519.PublicKey // who signed
}

// SignBinary signs the binary at path and returns the signature file's
// bytes.
func SignBinary(priv ed25519.PrivateKey, path string, s BinarySig) ([]byte, error) {
	sum, size, err := FileSHA256(path)
	if err != nil {
		return nil, err
	}
	if err := checkToken("version", s.Version); err != nil {
		return nil, err
	}
	if err := checkToken("target", s.Target); err != nil {
		return nil, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	return seal(priv, binaryKind, []string{s.Version, s.Target, strconv.Itoa(s.VaultFormat), sum,
		strconv.FormatInt(size, 10), FormatKey(pub)}, binaryFields), nil
}

// VerifyBinary checks that sigData is a valid signature by one of keys over
// exactly the file at path, and returns what it says. It answers
// [ErrBadSignature] for a damaged signature or a file that is not the one
// signed, and [ErrUntrusted] for a valid one by a key not in keys.
func VerifyBinary(path string, sigData []byte, keys []ed25519.PublicKey) (*BinarySig, error) {
	f, pub, err := open(sigData, binaryKind, binaryFields)
	if err != nil {
		return nil, err
	}
	format, err1 := strconv.Atoi(f["vault-format"])
	size, err2 := strconv.ParseInt(f["size"], 10, 64)
	if err1 != nil || err2 != nil || format < 1 || size < 0 {
		return nil, fmt.Errorf("%w: malformed vault-format or size", ErrBadSignature)
	}
	s := &BinarySig{Version: f["version"], Target: f["target"], VaultFormat: format,
		SHA256: f["sha256"], Size: size, Key: pub}
	if !trusted(pub, keys) {
		return s, fmt.Errorf("%w: signed by %s", ErrUntrusted, FormatKey(pub))
	}
	sum, n, err := FileSHA256(path)
	if err != nil {
		return nil, err
	}
	if sum != s.SHA256 || n != s.Size {
		return nil, fmt.Errorf("%w: %s has SHA-256 %s (%d bytes), the signature is for %s (%d bytes)",
			ErrBadSignature, path, sum, n, s.SHA256, s.Size)
	}
	return s, nil
}

// SignSums signs a SHA256SUMS file's bytes.
func SignSums(priv ed25519.PrivateKey, sums []byte) []byte {
	sum := sha256.Sum256(sums)
	pub := priv.Public().(ed25519.PublicKey)
	return seal(priv, sumsKind, []string{hex.EncodeToString(sum[:]), FormatKey(pub)}, sumsFields)
}

// VerifySums checks a SHA256SUMS file against its signature and returns
// the signer.
func VerifySums(sums, sigData []byte, keys []ed25519.PublicKey) (ed25519.PublicKey, error) {
	f, pub, err := open(sigData, sumsKind, sumsFields)
	if err != nil {
		return nil, err
	}
	if !trusted(pub, keys) {
		return pub, fmt.Errorf("%w: signed by %s", ErrUntrusted, FormatKey(pub))
	}
	sum := sha256.Sum256(sums)
	if hex.EncodeToString(sum[:]) != f["sha256"] {
		return nil, fmt.Errorf("%w: SHA256SUMS is not the file that was signed", ErrBadSignature)
	}
	return pub, nil
}

// seal writes the kind line and fields, then the signature over them.
func seal(priv ed25519.PrivateKey, kind string, values, names []string) []byte {
	var b bytes.Buffer
	b.WriteString(kind + "\n")
	for i, name := range names {
		b.WriteString(name + " " + values[i] + "\n")
	}
	sig := ed25519.Sign(priv, b.Bytes())
	b.WriteString("sig " + hex.EncodeToString(sig) + "\n")
	return b.Bytes()
}

// open parses a signature file of the given kind and checks its
// signature with the key it names (whether that key is trusted is the
// caller's question).
func open(data []byte, kind string, names []string) (map[string]string, ed25519.PublicKey, error) {
	bad := func(why string) error { return fmt.Errorf("%w: %s", ErrBadSignature, why) }
	if len(data) > maxSigFile {
		return nil, nil, bad("signature file too large")
	}
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		return nil, nil, bad("signature file does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(names)+2 || lines[0] != kind {
		return nil, nil, bad("not a " + kind)
	}
	fields := make(map[string]string, len(names))
	for i, name := range names {
		v, ok := strings.CutPrefix(lines[i+1], name+" ")
		if !ok || checkToken(name, v) != nil {
			return nil, nil, bad("field " + strconv.Itoa(i+1) + " is not " + name)
		}
		fields[name] = v
	}
	for _, hexField := range []string{"sha256"} {
		if b, err := hex.DecodeString(fields[hexField]); err != nil || len(b) != sha256.Size || strings.ToLower(fields[hexField]) != fields[hexField] {
			return nil, nil, bad("sha256 is not 64 lowercase hex digits")
		}
	}
	pub, err := ParseKey(fields["key"])
	if err != nil || strings.ToLower(fields["key"]) != fields["key"] {
		return nil, nil, bad("key is not an Ed25519 public key")
	}
	sigHex, ok := strings.CutPrefix(lines[len(lines)-1], "sig ")
	sig, err := hex.DecodeString(sigHex)
	if !ok || err != nil || len(sig) != ed25519.SignatureSize || strings.ToLower(sigHex) != sigHex {
		return nil, nil, bad("sig is not an Ed25519 signature")
	}
	signed := text[:len(text)-len(lines[len(lines)-1])-1]
	if !ed25519.Verify(pub, []byte(signed), sig) {
		return nil, nil, bad("the signature does not match the signed fields")
	}
	return fields, pub, nil
}

// checkToken refuses empty values and values with spaces or control
// characters, which would make a line mean something else.
func checkToken(name, v string) error {
	if v == "" || len(v) > 128 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("release: %s %q must be 1-128 printable characters without spaces", name, v)
	}
	return nil
}

// FileSHA256 is the SHA-256 (lowercase hex) and size of the file at path.
func FileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("release: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("release: read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
