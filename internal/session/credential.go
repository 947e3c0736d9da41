package session

// The unlock credential: the vault's master key sealed with
// XChaCha20-Poly1305 under a key derived by HKDF-SHA256 from the per-boot
// secret, with everything the credential is good for bound into both the
// derivation and the AAD.
//
//	<name>.cred (mode 0600), little-endian:
//	  0   8  magic "CMPCRED1"
//	  8   1  flags: bit 0 = once (the first process to use it deletes it)
//	  9   8  created, Unix nanoseconds (int64)
//	  17  24 nonce
//	  41  48 sealed master key (32 bytes + 16-byte tag)
//	  total 89 bytes
//
//	binding  = "compartment session v1" 0x00 || u16 len || boot id
//	           || u32 uid || vault id (16) || u16 len || canonical vault path
//	key      = HKDF-SHA256(secret = boot secret, salt = "compartment-session",
//	                       info = binding, 32 bytes)
//	AAD      = bytes 0..17 of the file || binding
//
// A credential copied to another vault's name, kept past a reboot, used by
// another user or against a vault replaced at the same path fails to open.
// Part of the format: do not change.

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

const (
	credMagic    = "CMPCRED1"
	credHeadSize = 17
	credSize     = credHeadSize + chacha20poly1305.NonceSizeX + masterSize + chacha20poly1305.Overhead
	masterSize   = 32
	flagOnce     = 1
	bindingLabel = "compartment session v1"
	hkdfSalt     = "compartment-session"
)

// errBadCredential is any credential that does not open: wrong boot,
// wrong vault, wrong user, copied, or damaged. Callers treat it as "no
// credential" and delete the file.
var errBadCredential = errors.New("session: the unlock credential does not open here (another boot, vault or user)")

// binding is what a credential is good for.
type binding struct {
	bootID  string
	uid     uint32
	vaultID [16]byte
	path    string
}

func (b binding) bytes() []byte {
	out := append([]byte(bindingLabel), 0)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(b.bootID)))
	out = append(out, b.bootID...)
	out = binary.LittleEndian.AppendUint32(out, b.uid)
	out = append(out, b.vaultID[:]...)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(b.path)))
	return append(out, b.path...)
}

// credKey derives the sealing key for b from the boot secret.
func credKey(secret []byte, b binding) ([]byte, error) {
	return hkdf.Key(sha256.New, secret, []byte(hkdfSalt), string(b.bytes()), chacha20poly1305.KeySize)
}

// credential is an opened credential.
type credential struct {
	master  []byte
	once    bool
	created time.Time
}

// sealCredential builds the credential file's bytes.
func sealCredential(secret []byte, b binding, c credential) ([]byte, error) {
	if len(c.master) != masterSize {
		panic("session: master key must be 32 bytes")
	}
	key, err := credKey(secret, b)
	if err != nil {
		return nil, fmt.Errorf("session: derive credential key: %w", err)
	}
	defer wipe(key)
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	out := make([]byte, credHeadSize, credSize)
	copy(out, credMagic)
	if c.once {
		out[8] = flagOnce
	}
	binary.LittleEndian.PutUint64(out[9:17], uint64(c.created.UnixNano()))
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("session: draw nonce: %w", err)
	}
	aad := append(append([]byte(nil), out...), b.bytes()...)
	out = append(out, nonce...)
	return aead.Seal(out, nonce, c.master, aad), nil
}

// openCredential authenticates and opens a credential file's bytes.
func openCredential(secret []byte, b binding, data []byte) (credential, error) {
	if len(data) != credSize || string(data[:8]) != credMagic || data[8]&^flagOnce != 0 {
		return credential{}, errBadCredential
	}
	key, err := credKey(secret, b)
	if err != nil {
		return credential{}, fmt.Errorf("session: derive credential key: %w", err)
	}
	defer wipe(key)
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return credential{}, fmt.Errorf("session: %w", err)
	}
	aad := append(append([]byte(nil), data[:credHeadSize]...), b.bytes()...)
	nonce := data[credHeadSize : credHeadSize+chacha20poly1305.NonceSizeX]
	master, err := aead.Open(nil, nonce, data[credHeadSize+chacha20poly1305.NonceSizeX:], aad)
	if err != nil {
		return credential{}, errBadCredential
	}
	return credential{
		master:  master,
		once:    data[8]&flagOnce != 0,
		created: time.Unix(0, int64(binary.LittleEndian.Uint64(data[9:17]))),
	}, nil
}

// wipe zeroes key material.
func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
