package vaultfmt

// A memory pack (FORMAT.md §8), plaintext and signed:
//
//	 0         8     10    14          14+M        78+M   86+M
//	+----------+-----+-----+-----------+-----------+------+-----------+
//	| CMPPACK1 | ver | M   | manifest  | signature | B    | body      |
//	|          | u16 | u32 | (M bytes) | (64)      | u64  | (B bytes) |
//	+----------+-----+-----+-----------+-----------+------+-----------+
//
// manifest: name, version, author key (32), created (i64), count (u32),
// body SHA-256 (32), model. body: count × (u32 length, entry bytes).
// The signature is Ed25519 over packContext || bytes [0, 14+M).

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Pack format constants. Part of the format: do not change.
const (
	packMagic       = "CMPPACK1"
	packVersion1    = 1
	packContext     = "compartment mpack v1\x00"
	packFixed       = 14 // magic, version, manifest length
	packMaxManifest = 64 << 10
	packMaxBody     = 256 << 20
	packMaxEntry    = 64 << 10
	packMaxCount    = 1_000_000
	packMaxName     = 64
	packMaxVersion  = 64
	packMaxModel    = 128
)

// MaxPackBytes is the largest file a valid pack can be: readers refuse
// anything longer before reading it.
const MaxPackBytes = packFixed + packMaxManifest + 64 + 8 + packMaxBody

// Pack errors; callers test them with errors.Is.
var (
	// ErrPackUntrusted: no trusted key signed this pack.
	ErrPackUntrusted = errors.New("vaultfmt: the pack is not signed by a key you trust")
	// ErrPackCorrupt: the bytes are not a whole, unaltered pack.
	ErrPackCorrupt = errors.New("vaultfmt: the pack is damaged, truncated or has been altered")
)

var packNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// PackManifest describes a pack.
type PackManifest struct {
	Name    string
	Version string
	Author  ed25519.PublicKey
	Created time.Time
	Count   int
	Model   string
	// BodySHA256 is filled in by [EncodePack] and checked by [DecodePack].
	BodySHA256 [32]byte
}

// Pack is a decoded, verified pack: its manifest and its entries (opaque
// bytes here; internal/vault gives them meaning).
type Pack struct {
	Manifest PackManifest
	Entries  [][]byte
}

// CheckPackName reports whether name may name a pack.
func CheckPackName(name string) error {
	if len(name) == 0 || len(name) > packMaxName || !packNameRE.MatchString(name) {
		return fmt.Errorf("vaultfmt: pack name %q: use 1 to %d lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", name, packMaxName)
	}
	return nil
}

// EncodePack writes a pack of entries signed by key. m's Author, Count and
// BodySHA256 are set from key and entries.
func EncodePack(m PackManifest, entries [][]byte, key ed25519.PrivateKey) ([]byte, error) {
	if len(key) != ed25519.PrivateKeySize {
		panic("vaultfmt: EncodePack: bad private key length")
	}
	if err := CheckPackName(m.Name); err != nil {
		return nil, err
	}
	switch {
	case len(m.Version) > packMaxVersion:
		return nil, fmt.Errorf("vaultfmt: pack version is %d bytes, at most %d", len(m.Version), packMaxVersion)
	case len(m.Model) > packMaxModel:
		return nil, fmt.Errorf("vaultfmt: pack model name is %d bytes, at most %d", len(m.Model), packMaxModel)
	case len(entries) > packMaxCount:
		return nil, fmt.Errorf("vaultfmt: a pack holds at most %d entries, not %d", packMaxCount, len(entries))
	}
	var body bytes.Buffer
	for i, e := range entries {
		if len(e) == 0 || len(e) > packMaxEntry {
			return nil, fmt.Errorf("vaultfmt: pack entry %d is %d bytes, want 1 to %d", i, len(e), packMaxEntry)
		}
		body.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(e))))
		body.Write(e)
	}
	if body.Len() > packMaxBody {
		return nil, fmt.Errorf("vaultfmt: pack body is %d bytes, at most %d", body.Len(), packMaxBody)
	}
	m.Author = key.Public().(ed25519.PublicKey)
	m.Count = len(entries)
	m.BodySHA256 = sha256.Sum256(body.Bytes())
	manifest := encodeManifest(m)

	out := make([]byte, 0, packFixed+len(manifest)+64+8+body.Len())
	out = append(out, packMagic...)
	out = binary.LittleEndian.AppendUint16(out, packVersion1)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(manifest)))
	out = append(out, manifest...)
	out = append(out, ed25519.Sign(key, signedPackBytes(out))...)
	out = binary.LittleEndian.AppendUint64(out, uint64(body.Len()))
	return append(out, body.Bytes()...), nil
}

func signedPackBytes(head []byte) []byte {
	return append([]byte(packContext), head...)
}

func encodeManifest(m PackManifest) []byte {
	var b []byte
	str := func(s string) {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	str(m.Name)
	str(m.Version)
	b = append(b, m.Author...)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.Created.UnixNano()))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Count))
	b = append(b, m.BodySHA256[:]...)
	str(m.Model)
	return b
}

// DecodePack parses and verifies a pack against the keys the user trusts,
// in the order of FORMAT.md §8.3. The author key inside the pack only
// selects which trusted key to check; it never vouches for the pack.
func DecodePack(b []byte, trusted []ed25519.PublicKey) (*Pack, error) {
	m, manifestLen, err := packLayout(b)
	if err != nil {
		return nil, err
	}
	head := b[:packFixed+manifestLen]
	sig := b[packFixed+manifestLen : packFixed+manifestLen+ed25519.SignatureSize]
	if !signedByTrusted(m.Author, head, sig, trusted) {
		return nil, fmt.Errorf("%w: pack %q is signed by key %x…, which is not in your trust list", ErrPackUntrusted, m.Name, []byte(m.Author)[:8])
	}
	body := b[packFixed+manifestLen+ed25519.SignatureSize+8:]
	if sha256.Sum256(body) != m.BodySHA256 {
		return nil, packCorrupt("the body does not match the signed manifest")
	}
	entries, err := packEntries(body, m.Count)
	if err != nil {
		return nil, err
	}
	return &Pack{Manifest: m, Entries: entries}, nil
}

// ReadPackManifest parses a pack's layout and manifest without checking
// its signature: for showing who signed a pack before trusting it.
func ReadPackManifest(b []byte) (PackManifest, error) {
	m, _, err := packLayout(b)
	return m, err
}

func signedByTrusted(author ed25519.PublicKey, head, sig []byte, trusted []ed25519.PublicKey) bool {
	msg := signedPackBytes(head)
	for _, k := range trusted {
		if len(k) == ed25519.PublicKeySize && bytes.Equal(k, author) && ed25519.Verify(k, msg, sig) {
			return true
		}
	}
	return false
}

func packCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPackCorrupt, fmt.Sprintf(format, args...))
}

// packLayout checks §8.1 and parses the manifest (§8.2).
func packLayout(b []byte) (PackManifest, int, error) {
	if len(b) < packFixed || string(b[:8]) != packMagic {
		return PackManifest{}, 0, packCorrupt("not a memory pack (no %s magic)", packMagic)
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != packVersion1 {
		return PackManifest{}, 0, fmt.Errorf("%w: pack format version %d (this build reads 1)", ErrUnsupportedVersion, v)
	}
	ml := binary.LittleEndian.Uint32(b[10:])
	if ml == 0 || ml > packMaxManifest {
		return PackManifest{}, 0, packCorrupt("manifest length %d out of bounds", ml)
	}
	bodyAt := packFixed + int(ml) + ed25519.SignatureSize + 8
	if len(b) < bodyAt {
		return PackManifest{}, 0, packCorrupt("truncated: %d bytes, the header alone needs %d", len(b), bodyAt)
	}
	bl := binary.LittleEndian.Uint64(b[bodyAt-8:])
	if bl > packMaxBody {
		return PackManifest{}, 0, packCorrupt("body length %d out of bounds", bl)
	}
	if want := uint64(bodyAt) + bl; uint64(len(b)) != want {
		return PackManifest{}, 0, packCorrupt("the file is %d bytes, its header says %d (truncated or extended)", len(b), want)
	}
	m, err := decodeManifest(b[packFixed : packFixed+int(ml)])
	return m, int(ml), err
}

func decodeManifest(b []byte) (PackManifest, error) {
	r := packReader{b: b}
	var m PackManifest
	m.Name = r.str(packMaxName)
	m.Version = r.str(packMaxVersion)
	m.Author = ed25519.PublicKey(bytes.Clone(r.take(ed25519.PublicKeySize)))
	created := r.take(8)
	count := r.take(4)
	copy(m.BodySHA256[:], r.take(32))
	m.Model = r.str(packMaxModel)
	if r.err != nil {
		return PackManifest{}, r.err
	}
	if len(r.b) != 0 {
		return PackManifest{}, packCorrupt("%d stray bytes after the manifest", len(r.b))
	}
	if err := CheckPackName(m.Name); err != nil {
		return PackManifest{}, packCorrupt("%v", err)
	}
	m.Created = time.Unix(0, int64(binary.LittleEndian.Uint64(created))).UTC()
	n := binary.LittleEndian.Uint32(count)
	if n > packMaxCount {
		return PackManifest{}, packCorrupt("count %d out of bounds", n)
	}
	m.Count = int(n)
	return m, nil
}

func packEntries(body []byte, count int) ([][]byte, error) {
	r := packReader{b: body}
	entries := make([][]byte, 0, min(count, len(body)/5))
	for i := 0; i < count; i++ {
		l := r.take(4)
		if r.err != nil {
			return nil, packCorrupt("entry %d: %v", i, r.err)
		}
		n := binary.LittleEndian.Uint32(l)
		if n == 0 || n > packMaxEntry {
			return nil, packCorrupt("entry %d is %d bytes, want 1 to %d", i, n, packMaxEntry)
		}
		e := r.take(int(n))
		if r.err != nil {
			return nil, packCorrupt("entry %d: %v", i, r.err)
		}
		entries = append(entries, bytes.Clone(e))
	}
	if len(r.b) != 0 {
		return nil, packCorrupt("%d stray bytes after entry %d", len(r.b), count)
	}
	return entries, nil
}

// packReader reads fields in order, remembering the first short read.
type packReader struct {
	b   []byte
	err error
}

func (r *packReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = packCorrupt("a field runs past the end")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *packReader) str(max int) string {
	l := r.take(2)
	if r.err != nil {
		return ""
	}
	n := int(binary.LittleEndian.Uint16(l))
	if n > max {
		r.err = packCorrupt("a string field is %d bytes, at most %d", n, max)
		return ""
	}
	return string(r.take(n))
}
