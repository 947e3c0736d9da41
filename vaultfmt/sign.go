package vaultfmt

// The canonical manifest that a vault signature signs (FORMAT.md §2.8),
// 134 bytes:
//
//	 0                       24      26          42      50        58           62              94            102             134
//	+------------------------+-------+-----------+-------+---------+------------+---------------+-------------+---------------+
//	| "compartment manifest  | ver   | vault id  | epoch | created | header_len | header digest | payload_len | payload SHA-256|
//	|  v1\0" (24)            | u16   | 16        | u64   | i64     | u32        | 32            | u64         | 32            |
//	+------------------------+-------+-----------+-------+---------+------------+---------------+-------------+---------------+
//
// The header digest is SHA-256 over the header bytes before the MAC with
// the signature record left out; the signature is pure Ed25519 over these
// 134 bytes.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// manifestContext starts every manifest, so a vault signature can never be
// mistaken for a signature over anything else. Part of the format: do not
// change.
const manifestContext = "compartment manifest v1\x00"

// manifestSize is the length of a v1 manifest.
const manifestSize = len(manifestContext) + 2 + 16 + 8 + 8 + 4 + 32 + 8 + 32

// Sign compacts and adds an Ed25519 signature over the canonical manifest.
// Frames appended later are not covered: [Verify] then reports the
// signature as valid for an earlier state (SignedCurrent false), and the
// next compaction drops it.
func (v *Vault) Sign(key ed25519.PrivateKey) error {
	if len(key) != ed25519.PrivateKeySize {
		return fmt.Errorf("vaultfmt: signing key is %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	return v.rewrite(rewrite{sign: key})
}

// manifest builds the canonical manifest of a header and its payload.
func manifest(h *header, headerSum, payloadSum [32]byte) []byte {
	b := make([]byte, 0, manifestSize)
	b = append(b, manifestContext...)
	b = binary.LittleEndian.AppendUint16(b, h.version)
	b = append(b, h.vaultID[:]...)
	b = binary.LittleEndian.AppendUint64(b, h.epoch)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.created))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.encodedLen()))
	b = append(b, headerSum[:]...)
	b = binary.LittleEndian.AppendUint64(b, h.payloadLen)
	return append(b, payloadSum[:]...)
}

// headerDigest hashes the header bytes before the MAC (body), leaving out
// the signature record: everything the signer fixed before signing.
func headerDigest(h *header, body []byte) [32]byte {
	extLenAt := fixedHeaderSize + slotSize*len(h.slots) + 36 + len(h.pin.Name)
	d := sha256.New()
	d.Write(body[:extLenAt+4])
	r := &reader{b: body[extLenAt+4:]}
	for r.off < len(r.b) && !r.err {
		start := r.off
		typ, n := r.u16(), int(r.u16())
		r.bytes(n)
		if typ != extSignature && !r.err {
			d.Write(r.b[start:r.off])
		}
	}
	var out [32]byte
	copy(out[:], d.Sum(nil))
	return out
}

// checkSignature verifies the header's signature over the file image.
func checkSignature(h *header, file []byte) error {
	end := uint64(h.length) + h.payloadLen
	if end > uint64(len(file)) {
		return corruptf("signature", -1, -1, "signed payload is not all there")
	}
	hs := headerDigest(h, h.raw[:len(h.raw)-trailerSize])
	ps := sha256.Sum256(file[h.length:end])
	if len(h.sig.PublicKey) != ed25519.PublicKeySize || !ed25519.Verify(h.sig.PublicKey, manifest(h, hs, ps), h.sig.Sig) {
		return corruptf("signature", -1, -1, "the signature does not match the manifest")
	}
	return nil
}

// Verify checks the structure of every frame and, when sig is present, the
// signature; with u non-nil it also opens every sealed thing. The error is
// nil when nothing is wrong; damage is a *CorruptError (ErrCorrupt), also
// listed in Problems. A crash-torn tail is reported in Torn, not as damage.
func Verify(path string, u *Unlock) (VerifyReport, error) {
	var rep VerifyReport
	data, err := readForVerify(path)
	if err != nil {
		return rep, err
	}
	h, err := parseHeader(data)
	if err != nil {
		return rep, err
	}
	rep.Header = h.public()
	var k *keys
	if u != nil {
		if k, err = unlockKeys(h, *u); err != nil {
			return rep, err
		}
		defer k.zero()
		rep.TagsChecked = true
	}
	var problems []error
	if h.sig != nil {
		rep.Signed = true
		if err := checkSignature(h, data); err != nil {
			problems = append(problems, err)
		} else {
			rep.SignatureOK = true
		}
	}
	if err := verifyFrames(&rep, h, k, data); err != nil {
		problems = append(problems, err)
	}
	rep.SignedCurrent = rep.SignatureOK && rep.JournalFrames == 0 && len(problems) == 0
	for _, p := range problems {
		rep.Problems = append(rep.Problems, p.Error())
	}
	if len(problems) > 0 {
		return rep, problems[0]
	}
	return rep, nil
}

// verifyFrames walks payload and journal, opening every item when k is set.
func verifyFrames(rep *VerifyReport, h *header, k *keys, data []byte) error {
	live := map[ID]bool{}
	openAll := func(off, _ int64, es []entry) error {
		for i := range es {
			e := &es[i]
			if e.op == OpDelete {
				delete(live, e.id)
				continue
			}
			body, err := openItem(k, h.vaultID, e)
			if err != nil {
				return corruptf("item", off, -1, "entry %d (id %x): %v", i, e.id, err)
			}
			wipe(body)
			live[e.id] = true
		}
		return nil
	}
	n, _, err := walkPayload(data, h, k, openAll)
	if err != nil {
		return err
	}
	start := int64(h.length) + int64(h.payloadLen)
	jn, torn, err := walkJournal(data[start:], start, h, k, 0, openAll)
	rep.Frames, rep.JournalFrames = n+jn, jn
	if torn >= 0 {
		rep.Torn = &TornTail{Offset: torn, Bytes: int64(len(data)) - torn}
	}
	if k != nil {
		rep.Items = len(live)
	}
	return err
}

// readForVerify reads the whole file, under a shared lock when a lock file
// exists (Verify never creates one: it may run on a copied file in a
// read-only place).
func readForVerify(path string) ([]byte, error) {
	if lf, err := os.Open(path + ".lock"); err == nil {
		defer lf.Close()
		if err := flock(lf, lockShared); err == nil {
			defer funlock(lf)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vaultfmt: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("vaultfmt: read %s: %w", path, err)
	}
	return buf.Bytes(), nil
}
