package vaultfmt

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// Sizes of the sealing primitives. Part of the format: do not change.
const (
	keySize      = chacha20poly1305.KeySize    // 32
	nonceSize    = chacha20poly1305.NonceSizeX // 24
	tagSize      = chacha20poly1305.Overhead   // 16
	sealOverhead = nonceSize + tagSize         // a sealed thing is nonce || ciphertext || tag
	macSize      = sha256.Size                 // header MAC, HMAC-SHA256
)

// role names what a sealed thing is; it is the first byte of every AAD, so
// a sealed thing opened in any other role fails its tag. Part of the
// format: do not change the values.
type role uint8

const (
	roleSlot       role = 1 // master key wrapped under a key slot's KEK
	rolePayload    role = 2 // payload frame holding item entries
	rolePayloadEnd role = 3 // the payload's end marker
	roleJournal    role = 4 // journal frame holding one change
	roleItemKey    role = 5 // per-item key wrapped under the wrapping subkey
	roleItemBody   role = 6 // item body sealed under its per-item key
)

// HKDF-SHA256 info strings of the three master-key subkeys. Part of the
// format: do not change.
const (
	infoFrame     = "compartment v1 frame key"
	infoHeaderMAC = "compartment v1 header mac key"
	infoItemWrap  = "compartment v1 item wrapping key"
)

// keyfileDomain separates the keyfile digest mixed into Argon2id from any
// other SHA-256 use. Part of the format: do not change.
const keyfileDomain = "compartment v1 keyfile\x00"

var errOpen = errors.New("vaultfmt: message authentication failed")

// keys is the master key and the subkeys derived from it.
type keys struct {
	master [keySize]byte
	frame  [keySize]byte // seals payload and journal frames
	mac    [keySize]byte // HMAC key of the header MAC
	wrap   [keySize]byte // wraps per-item keys
}

// deriveKeys expands the master key with HKDF-SHA256, salted with the vault
// id, into one subkey per purpose, so no key is used for two jobs.
func deriveKeys(master []byte, vaultID [16]byte) (*keys, error) {
	if len(master) != keySize {
		return nil, fmt.Errorf("vaultfmt: master key is %d bytes, want %d", len(master), keySize)
	}
	k := &keys{}
	copy(k.master[:], master)
	for _, sub := range []struct {
		dst  *[keySize]byte
		info string
	}{{&k.frame, infoFrame}, {&k.mac, infoHeaderMAC}, {&k.wrap, infoItemWrap}} {
		out, err := hkdf.Key(sha256.New, master, vaultID[:], sub.info, keySize)
		if err != nil {
			return nil, fmt.Errorf("vaultfmt: derive subkey: %w", err)
		}
		copy(sub.dst[:], out)
		wipe(out)
	}
	return k, nil
}

// zero overwrites every key.
func (k *keys) zero() {
	if k == nil {
		return
	}
	wipe(k.master[:])
	wipe(k.frame[:])
	wipe(k.mac[:])
	wipe(k.wrap[:])
}

// wipe overwrites b with zeros.
func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

// seal appends nonce || ciphertext || tag to dst. The nonce is drawn from
// rnd; 24 random bytes make a collision negligible for any number of
// messages a vault will ever see.
func seal(dst []byte, key []byte, rnd io.Reader, plaintext, aad []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		panic(err) // keys are always keySize: a wrong length is a bug here
	}
	start := len(dst)
	dst = append(dst, make([]byte, nonceSize)...)
	if _, err := io.ReadFull(rnd, dst[start:]); err != nil {
		return nil, fmt.Errorf("vaultfmt: draw nonce: %w", err)
	}
	return aead.Seal(dst, dst[start:start+nonceSize], plaintext, aad), nil
}

// open authenticates and decrypts a sealed thing made by [seal]. On failure
// it returns errOpen and no plaintext: the partial output is zeroed.
func open(key, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < sealOverhead {
		return nil, errOpen
	}
	return openTo(make([]byte, 0, len(sealed)-sealOverhead), key, sealed, aad)
}

// openTo is [open] decrypting into out's spare capacity.
func openTo(out, key, sealed, aad []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		panic(err)
	}
	pt, err := aead.Open(out, sealed[:nonceSize], sealed[nonceSize:], aad)
	if err != nil {
		wipe(out[:cap(out)])
		return nil, errOpen
	}
	return pt, nil
}

// aadFrame is the AAD of a payload frame, the payload end marker or a
// journal frame: role || version || vault id || epoch || sequence number.
func aadFrame(r role, vaultID [16]byte, epoch, seq uint64) []byte {
	b := make([]byte, 0, 35)
	b = append(b, byte(r))
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = append(b, vaultID[:]...)
	b = binary.LittleEndian.AppendUint64(b, epoch)
	return binary.LittleEndian.AppendUint64(b, seq)
}

// aadItem is the AAD of a wrapped item key or a sealed item body:
// role || version || vault id || item id || kind. It has no epoch because
// both travel unchanged through compactions; the frame around them carries
// the position.
func aadItem(r role, vaultID [16]byte, id ID, kind Kind) []byte {
	b := make([]byte, 0, 36)
	b = append(b, byte(r))
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = append(b, vaultID[:]...)
	b = append(b, id[:]...)
	return append(b, byte(kind))
}

// aadSlot is the AAD of a key slot's wrapped master key: role || version ||
// vault id || the slot's first 28 bytes (kind, KDF id, parameters, salt), so
// the stored parameters cannot be changed without the unwrap failing.
func aadSlot(vaultID [16]byte, slotHead []byte) []byte {
	b := make([]byte, 0, 19+len(slotHead))
	b = append(b, byte(roleSlot))
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = append(b, vaultID[:]...)
	return append(b, slotHead...)
}

// headerMAC is HMAC-SHA256 under the header MAC subkey.
func headerMAC(k *keys, covered []byte) [macSize]byte {
	m := hmac.New(sha256.New, k.mac[:])
	m.Write(covered)
	var out [macSize]byte
	copy(out[:], m.Sum(nil))
	return out
}

// slotKEK derives a key slot's key-encryption key with Argon2id. For a
// passphrase+keyfile slot the Argon2id password is SHA-256(domain ||
// keyfile) || passphrase: the fixed-length prefix keeps the two inputs
// unambiguous, and without the keyfile no passphrase derives the KEK.
func slotKEK(kind SlotKind, p KDFParams, salt []byte, passphrase, keyfile []byte) []byte {
	var pw []byte
	if kind == SlotPassphraseKeyfile {
		d := sha256.New()
		d.Write([]byte(keyfileDomain))
		d.Write(keyfile)
		pw = d.Sum(nil)
	}
	pw = append(pw, passphrase...)
	kek := argon2.IDKey(pw, salt, p.Time, p.MemoryKiB, p.Threads, keySize)
	wipe(pw)
	return kek
}
