package devsync

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"

	"golang.org/x/crypto/chacha20poly1305"
)

// Sizes and roles. Part of the format: do not change.
const (
	formatVersion = 1
	keySize       = 32
	nonceSize     = chacha20poly1305.NonceSizeX
	tagSize       = chacha20poly1305.Overhead
	macSize       = sha256.Size
	roleSlot      = 0x11 // the folder key in folder.key's slot
	roleFrame     = 0x21 // a log frame
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// folderKeys are the subkeys of one folder key (FORMAT.md 10.1).
type folderKeys struct {
	folderID [16]byte
	frame    []byte
	chain    []byte
	roster   []byte
}

func deriveFolderKeys(master []byte, folderID [16]byte) (*folderKeys, error) {
	k := &folderKeys{folderID: folderID}
	for _, sub := range []struct {
		dst  *[]byte
		info string
	}{
		{&k.frame, "compartment sync v1 frame key"},
		{&k.chain, "compartment sync v1 chain key"},
		{&k.roster, "compartment sync v1 roster key"},
	} {
		out, err := hkdf.Key(sha256.New, master, folderID[:], sub.info, keySize)
		if err != nil {
			return nil, fmt.Errorf("devsync: derive subkey: %w", err)
		}
		*sub.dst = out
	}
	return k, nil
}

func hmacSum(key []byte, parts ...[]byte) [macSize]byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	var out [macSize]byte
	copy(out[:], m.Sum(nil))
	return out
}

// seal returns nonce || ciphertext || tag under key, with a fresh nonce.
func seal(key, plaintext, aad []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, nonceSize, nonceSize+len(plaintext)+tagSize)
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("devsync: draw nonce: %w", err)
	}
	return aead.Seal(out, out[:nonceSize], plaintext, aad), nil
}

var errOpen = errors.New("devsync: authentication failed")

func open(key, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < nonceSize+tagSize {
		return nil, errOpen
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	out, err := aead.Open(nil, sealed[:nonceSize], sealed[nonceSize:], aad)
	if err != nil {
		return nil, errOpen
	}
	return out, nil
}

func randomID() ([16]byte, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return id, fmt.Errorf("devsync: random id: %w", err)
	}
	return id, nil
}
