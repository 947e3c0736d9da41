package vaultfmt

// The plaintext header, byte by byte (FORMAT.md §2.2 is the full spec).
// All integers little-endian.
//
//	 0       8     10     12           16                32        40        48            56  57     60
//	+--------+------+------+------------+-----------------+---------+---------+-------------+---+-----+
//	| magic  | ver  | flags| header_len |    vault id     | created |  epoch  | payload_len | n | 000 |
//	+--------+------+------+------------+-----------------+---------+---------+-------------+---+-----+
//	| n key slots, 100 bytes each:                                                                   |
//	|   kind u8 | kdf u8 | threads u8 | 0 | time u32 | mem KiB u32 | salt 16 | nonce 24 | wrapped 48  |
//	+-------------------------------------------------------------------------------------------------+
//	| model pin: name_len u16 | name | sha256 32 | dim u16                                             |
//	+-------------------------------------------------------------------------------------------------+
//	| extensions: ext_len u32 | { type u16 | len u16 | value } ...                                   |
//	+-------------------------------------------------------------------------------------------------+
//	| MAC 32: HMAC-SHA256(header mac key, every byte before it)                                       |
//	| CRC u32: CRC-32C of every byte before it                                                        |
//	+-------------------------------------------------------------------------------------------------+

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"
)

// formatVersion is the only version this package reads and writes. Versions
// are a linear enum: a reader refuses any it does not know.
// Part of the format: do not change.
const (
	formatVersion1 uint16 = 1 // the first format (this file)
	formatVersion         = formatVersion1
)

// Header layout constants. Part of the format: do not change.
const (
	magic            = "\x89CMPVLT\n"
	fixedHeaderSize  = 60
	slotSize         = 100
	slotHeadSize     = 28 // the slot bytes bound into its AAD
	maxSlots         = 8
	maxPinName       = 1024
	trailerSize      = macSize + 4
	minHeaderSize    = fixedHeaderSize + slotSize + 36 + 4 + trailerSize
	kdfArgon2id13    = 1      // the only KDF id: Argon2id, version 0x13
	extSignature     = 0x0001 // the signature record: Ed25519 public key || signature
	extCritical      = 0x8000 // a record a reader must understand or refuse the file
	extDerived       = 0x8002 // critical: the kind of derived items (FORMAT.md §2.11), 1 byte
	extDerivedPlain  = 0x8003 // critical: the kind of derived items, stored plain (op 5, §2.11), 1 byte
	signatureExtSize = 32 + 64
	derivedExtSize   = 1
	extPadding       = 0x0004 // not critical: zeros that keep a header at a length fixed in advance (build.go)
)

// MaxHeaderBytes bounds header_len: a larger one is damage, so a reader
// never needs more than this many bytes to parse a header. Part of the
// format: do not change.
const MaxHeaderBytes = 64 << 10

// Bounds on stored Argon2id parameters. A tampered header could otherwise
// ask an unlock for terabytes of memory or hours of passes.
const (
	maxKDFTime      = 64
	maxKDFMemoryKiB = 4 << 20 // 4 GiB
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// slot is one key slot as stored.
type slot struct {
	kind    SlotKind
	kdf     KDFParams
	salt    [16]byte
	nonce   [nonceSize]byte
	wrapped [keySize + tagSize]byte
}

// header is the decoded plaintext header.
type header struct {
	version    uint16
	length     uint32 // header_len
	vaultID    [16]byte
	created    int64 // Unix nanoseconds
	epoch      uint64
	payloadLen uint64
	slots      []slot
	pin        ModelPin
	sig        *Signature
	derived    Kind       // kind of the payload's derived items; 0: none (§2.11)
	plainDer   bool       // the derived items are stored plain, sealed by their frames only (0x8003); else each under its item key (0x8002)
	ancestry   []ancestor // the epochs this one descends from, newest first (ancestry.go)
	pad        int        // bytes of zeros in the padding record
	padded     bool       // write the padding record (a build outside the lock, build.go)
	mac        [macSize]byte
	raw        []byte // the header bytes, as read or as written
}

// head returns the slot bytes bound into its AAD: kind, KDF id, threads,
// reserved, time, memory, salt.
func (s *slot) head() []byte {
	b := make([]byte, 0, slotHeadSize)
	b = append(b, byte(s.kind), kdfArgon2id13, s.kdf.Threads, 0)
	b = binary.LittleEndian.AppendUint32(b, s.kdf.Time)
	b = binary.LittleEndian.AppendUint32(b, s.kdf.MemoryKiB)
	return append(b, s.salt[:]...)
}

// encodedLen is header_len for this header.
func (h *header) encodedLen() int {
	n := fixedHeaderSize + slotSize*len(h.slots) + 36 + len(h.pin.Name) + 4
	if h.sig != nil {
		n += 4 + signatureExtSize
	}
	if h.derived != 0 {
		n += 4 + derivedExtSize
	}
	if len(h.ancestry) > 0 {
		n += 4 + len(encodeAncestry(h.ancestry))
	}
	if h.padded {
		n += 4 + h.pad
	}
	return n + trailerSize
}

// encodeBody writes every header byte before the MAC. The signature record,
// when present, is written as given (the signer first writes zeros, hashes,
// then fills it in).
func (h *header) encodeBody() []byte {
	n := h.encodedLen()
	b := make([]byte, 0, n)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, h.version)
	b = binary.LittleEndian.AppendUint16(b, 0) // flags
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, h.vaultID[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.created))
	b = binary.LittleEndian.AppendUint64(b, h.epoch)
	b = binary.LittleEndian.AppendUint64(b, h.payloadLen)
	b = append(b, byte(len(h.slots)), 0, 0, 0)
	for i := range h.slots {
		s := &h.slots[i]
		b = append(b, s.head()...)
		b = append(b, s.nonce[:]...)
		b = append(b, s.wrapped[:]...)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h.pin.Name)))
	b = append(b, h.pin.Name...)
	b = append(b, h.pin.SHA256[:]...)
	b = binary.LittleEndian.AppendUint16(b, h.pin.Dim)
	ext := h.encodeExt()
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ext)))
	return append(b, ext...)
}

// encodeExt writes the extension records: the signature, the derived kind,
// the ancestry and the padding, in that order, each when there is one.
func (h *header) encodeExt() []byte {
	var b []byte
	if h.sig != nil {
		b = binary.LittleEndian.AppendUint16(b, extSignature)
		b = binary.LittleEndian.AppendUint16(b, signatureExtSize)
		b = append(b, h.sig.PublicKey...)
		b = append(b, h.sig.Sig...)
	}
	if h.derived != 0 {
		typ := uint16(extDerived)
		if h.plainDer {
			typ = extDerivedPlain
		}
		b = binary.LittleEndian.AppendUint16(b, typ)
		b = binary.LittleEndian.AppendUint16(b, derivedExtSize)
		b = append(b, byte(h.derived))
	}
	if len(h.ancestry) > 0 {
		val := encodeAncestry(h.ancestry)
		b = binary.LittleEndian.AppendUint16(b, extAncestry)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(val)))
		b = append(b, val...)
	}
	if h.padded {
		b = binary.LittleEndian.AppendUint16(b, extPadding)
		b = binary.LittleEndian.AppendUint16(b, uint16(h.pad))
		b = append(b, make([]byte, h.pad)...)
	}
	return b
}

// seal finishes an encoded body: MAC under k, then the CRC over all of it.
// It sets h.raw and h.mac.
func (h *header) seal(body []byte, k *keys) []byte {
	h.mac = headerMAC(k, body)
	b := append(body, h.mac[:]...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	h.length = uint32(len(b))
	h.raw = b
	return b
}

// checkMAC compares the stored MAC with one computed under k.
func (h *header) checkMAC(k *keys) bool {
	want := headerMAC(k, h.raw[:len(h.raw)-trailerSize])
	return hmac.Equal(want[:], h.mac[:])
}

// parseHeader validates and decodes the header at the start of data. It
// needs no key: the CRC catches accidental damage here, the MAC (checked
// after unlock) catches deliberate changes.
func parseHeader(data []byte) (*header, error) {
	if len(data) < 16 || string(data[:8]) != magic {
		return nil, ErrNotVault
	}
	h := &header{version: binary.LittleEndian.Uint16(data[8:])}
	if h.version != formatVersion1 {
		return nil, fmt.Errorf("%w: version %d (this build reads version %d)", ErrUnsupportedVersion, h.version, formatVersion)
	}
	h.length = binary.LittleEndian.Uint32(data[12:])
	if h.length < minHeaderSize || h.length > MaxHeaderBytes {
		return nil, corruptf("header", 12, -1, "header length %d out of range", h.length)
	}
	if len(data) < int(h.length) {
		return nil, corruptf("header", int64(len(data)), -1, "file ends inside the header (%d of %d bytes)", len(data), h.length)
	}
	raw := data[:h.length]
	crcAt := len(raw) - 4
	if got, want := crc32.Checksum(raw[:crcAt], crcTable), binary.LittleEndian.Uint32(raw[crcAt:]); got != want {
		return nil, corruptf("header", int64(crcAt), -1, "header checksum mismatch")
	}
	h.raw = bytes.Clone(raw)
	if err := h.decodeFields(h.raw); err != nil {
		return nil, err
	}
	return h, nil
}

// decodeFields reads the fields of a header whose CRC is already good, so
// any inconsistency left is a writer bug or deliberate: both are damage.
func (h *header) decodeFields(raw []byte) error {
	r := &reader{b: raw, off: 10}
	if flags := r.u16(); flags != 0 {
		return corruptf("header", 10, -1, "unknown flags %#04x", flags)
	}
	r.u32() // header_len, checked by the caller
	copy(h.vaultID[:], r.bytes(16))
	h.created = int64(r.u64())
	h.epoch = r.u64()
	h.payloadLen = r.u64()
	n := int(r.u8())
	if pad := r.bytes(3); n < 1 || n > maxSlots || pad[0]|pad[1]|pad[2] != 0 {
		return corruptf("header", 56, -1, "bad key slot count %d", n)
	}
	for i := 0; i < n; i++ {
		s, err := decodeSlot(r, i)
		if err != nil {
			return err
		}
		h.slots = append(h.slots, s)
	}
	if err := h.decodePin(r); err != nil {
		return err
	}
	if err := h.decodeExt(r); err != nil {
		return err
	}
	copy(h.mac[:], r.bytes(macSize))
	if r.err || r.off != len(raw)-4 {
		return corruptf("header", int64(r.off), -1, "fields do not fill the header length exactly")
	}
	return nil
}

func decodeSlot(r *reader, i int) (slot, error) {
	at := int64(r.off)
	var s slot
	s.kind = SlotKind(r.u8())
	alg := r.u8()
	s.kdf.Threads = r.u8()
	reserved := r.u8()
	s.kdf.Time = r.u32()
	s.kdf.MemoryKiB = r.u32()
	copy(s.salt[:], r.bytes(16))
	copy(s.nonce[:], r.bytes(nonceSize))
	copy(s.wrapped[:], r.bytes(keySize+tagSize))
	if r.err {
		return s, corruptf("header", at, -1, "key slot %d truncated", i)
	}
	if s.kind != SlotPassphrase && s.kind != SlotPassphraseKeyfile {
		return s, corruptf("header", at, -1, "key slot %d has unknown kind %d", i, s.kind)
	}
	if alg != kdfArgon2id13 || reserved != 0 {
		return s, corruptf("header", at+1, -1, "key slot %d has unknown KDF %d", i, alg)
	}
	if err := checkKDF(s.kdf); err != nil {
		return s, corruptf("header", at+2, -1, "key slot %d: %v", i, err)
	}
	return s, nil
}

func (h *header) decodePin(r *reader) error {
	at := int64(r.off)
	n := int(r.u16())
	if n > maxPinName {
		return corruptf("header", at, -1, "model pin name length %d too long", n)
	}
	h.pin.Name = string(r.bytes(n))
	copy(h.pin.SHA256[:], r.bytes(32))
	h.pin.Dim = r.u16()
	if r.err {
		return corruptf("header", at, -1, "model pin truncated")
	}
	return nil
}

// decodeExt reads the extension records. Unknown records are skipped unless
// their type has the critical bit, which means "refuse rather than misread".
func (h *header) decodeExt(r *reader) error {
	at := int64(r.off)
	n := int(r.u32())
	if r.err || n > len(r.b)-r.off-trailerSize {
		return corruptf("header", at, -1, "extension length %d overruns the header", n)
	}
	ext := &reader{b: r.bytes(n)}
	seen := map[uint16]bool{}
	for ext.off < len(ext.b) {
		recAt := at + 4 + int64(ext.off)
		typ, ln := ext.u16(), int(ext.u16())
		val := ext.bytes(ln)
		switch {
		case ext.err:
			return corruptf("header", recAt, -1, "extension record truncated")
		case seen[typ]:
			return corruptf("header", recAt, -1, "extension record %#04x repeated", typ)
		case typ == extSignature:
			if ln != signatureExtSize {
				return corruptf("header", recAt, -1, "signature record is %d bytes, want %d", ln, signatureExtSize)
			}
			h.sig = &Signature{PublicKey: bytes.Clone(val[:32]), Sig: bytes.Clone(val[32:])}
		case typ == extDerived || typ == extDerivedPlain:
			if ln != derivedExtSize || val[0] == 0 {
				return corruptf("header", recAt, -1, "derived-items record is %d bytes (kind %v), want 1 byte, a kind other than 0", ln, val)
			}
			if h.derived != 0 {
				return corruptf("header", recAt, -1, "two derived-items records")
			}
			h.derived, h.plainDer = Kind(val[0]), typ == extDerivedPlain
		case typ == extAncestry:
			as, err := parseAncestry(val)
			if err != nil {
				return corruptf("header", recAt, -1, "%v", err)
			}
			h.ancestry = as
		case typ&extCritical != 0:
			return fmt.Errorf("%w: header extension %#04x is required but unknown to this build", ErrUnsupportedVersion, typ)
		}
		seen[typ] = true
	}
	return nil
}

// checkKDF bounds Argon2id parameters, for what we write and what we read.
func checkKDF(p KDFParams) error {
	switch {
	case p.Time < 1 || p.Time > maxKDFTime:
		return fmt.Errorf("argon2id time %d outside 1..%d", p.Time, maxKDFTime)
	case p.Threads < 1:
		return fmt.Errorf("argon2id threads must be at least 1")
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxKDFMemoryKiB:
		return fmt.Errorf("argon2id memory %d KiB outside %d..%d", p.MemoryKiB, 8*uint32(p.Threads), maxKDFMemoryKiB)
	}
	return nil
}

// public converts the header for callers.
func (h *header) public() Header {
	out := Header{
		Version: h.version,
		VaultID: h.vaultID,
		Created: time.Unix(0, h.created).UTC(),
		Epoch:   h.epoch,
		Pin:     h.pin,
		Derived: h.derived,
	}
	for _, s := range h.slots {
		out.Slots = append(out.Slots, SlotInfo{Kind: s.kind, KDF: s.kdf})
	}
	if h.sig != nil {
		out.Signature = &Signature{PublicKey: bytes.Clone(h.sig.PublicKey), Sig: bytes.Clone(h.sig.Sig)}
	}
	return out
}

// reader decodes little-endian fields from a byte slice. A read past the
// end sets err and returns zeros, so decoders check once at the end.
type reader struct {
	b   []byte
	off int
	err bool
}

func (r *reader) bytes(n int) []byte {
	if r.err || n < 0 || n > len(r.b)-r.off {
		r.err = true
		return make([]byte, max(n, 0))
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

func (r *reader) u8() uint8   { return r.bytes(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.bytes(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }
