package devsync

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/compartment/compartment/vaultfmt"
)

// folder.key (FORMAT.md 10.1), 140 bytes:
//
//	0   magic "CMPSKEY1"      8
//	8   version u16, flags u16
//	12  folder id             16
//	28  created i64
//	36  key slot              100 (the layout of a vault key slot, 2.3)
//	136 CRC-32C of 0..136
//
// Part of the format: do not change.
const (
	keyFileName  = "folder.key"
	keyMagic     = "CMPSKEY1"
	keyFileSize  = 140
	slotOffset   = 36
	slotSize     = 100
	slotHeadSize = 28
	// keyfileDomain is the vault's own (FORMAT.md 2.3), so a folder key is
	// wrapped exactly as a vault key slot is.
	keyfileDomain = "compartment v1 keyfile\x00"
	slotPass      = 1
	slotPassKey   = 2
	maxKDFTime    = 64
	maxKDFMemKiB  = 4 * 1024 * 1024
)

// keyFile is the parsed folder.key.
type keyFile struct {
	folderID [16]byte
	created  time.Time
	slot     [slotSize]byte
}

func slotKEK(kind byte, p vaultfmt.KDFParams, salt, passphrase, keyfile []byte) []byte {
	var pw []byte
	if kind == slotPassKey {
		d := sha256.New()
		d.Write([]byte(keyfileDomain))
		d.Write(keyfile)
		pw = d.Sum(nil)
	}
	pw = append(pw, passphrase...)
	return argon2.IDKey(pw, salt, p.Time, p.MemoryKiB, p.Threads, keySize)
}

func slotAAD(folderID [16]byte, head []byte) []byte {
	aad := []byte{roleSlot}
	aad = binary.LittleEndian.AppendUint16(aad, formatVersion)
	aad = append(aad, folderID[:]...)
	return append(aad, head...)
}

// newKeyFile wraps a fresh folder key under the passphrase (and keyfile).
func newKeyFile(passphrase, keyfile []byte, kdf vaultfmt.KDFParams, now time.Time) (*keyFile, []byte, error) {
	if len(passphrase) == 0 {
		return nil, nil, fmt.Errorf("devsync: a passphrase is required for the sync folder")
	}
	if kdf == (vaultfmt.KDFParams{}) {
		kdf = vaultfmt.DefaultKDF
	}
	id, err := randomID()
	if err != nil {
		return nil, nil, err
	}
	master := make([]byte, keySize)
	if _, err := rand.Read(master); err != nil {
		return nil, nil, fmt.Errorf("devsync: draw folder key: %w", err)
	}
	kf := &keyFile{folderID: id, created: now}
	s := kf.slot[:]
	s[0] = slotPass
	if len(keyfile) > 0 {
		s[0] = slotPassKey
	}
	s[1], s[2] = 1, kdf.Threads
	binary.LittleEndian.PutUint32(s[4:], kdf.Time)
	binary.LittleEndian.PutUint32(s[8:], kdf.MemoryKiB)
	if _, err := rand.Read(s[12:28]); err != nil {
		return nil, nil, fmt.Errorf("devsync: draw salt: %w", err)
	}
	kek := slotKEK(s[0], kdf, s[12:28], passphrase, keyfile)
	sealed, err := seal(kek, master, slotAAD(id, s[:slotHeadSize]))
	if err != nil {
		return nil, nil, err
	}
	copy(s[28:], sealed)
	return kf, master, nil
}

func (kf *keyFile) encode() []byte {
	b := make([]byte, 0, keyFileSize)
	b = append(b, keyMagic...)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = append(b, kf.folderID[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(kf.created.UnixNano()))
	b = append(b, kf.slot[:]...)
	return binary.LittleEndian.AppendUint32(b, crc(b))
}

func decodeKeyFile(b []byte) (*keyFile, error) {
	switch {
	case len(b) != keyFileSize || !bytes.Equal(b[:8], []byte(keyMagic)):
		return nil, fmt.Errorf("%w: %s is not a compartment sync folder key", ErrRefused, keyFileName)
	case binary.LittleEndian.Uint16(b[8:]) != formatVersion:
		return nil, fmt.Errorf("%w: %s has format version %d, which this build does not know: update compartment", ErrRefused, keyFileName, binary.LittleEndian.Uint16(b[8:]))
	case binary.LittleEndian.Uint16(b[10:]) != 0 || binary.LittleEndian.Uint32(b[136:]) != crc(b[:136]):
		return nil, fmt.Errorf("%w: %s is damaged (its checksum fails)", ErrRefused, keyFileName)
	}
	kf := &keyFile{created: time.Unix(0, int64(binary.LittleEndian.Uint64(b[28:]))).UTC()}
	copy(kf.folderID[:], b[12:28])
	copy(kf.slot[:], b[slotOffset:slotOffset+slotSize])
	s := kf.slot[:]
	p := vaultfmt.KDFParams{Threads: s[2], Time: binary.LittleEndian.Uint32(s[4:]), MemoryKiB: binary.LittleEndian.Uint32(s[8:])}
	if (s[0] != slotPass && s[0] != slotPassKey) || s[1] != 1 || s[3] != 0 || p.Threads < 1 ||
		p.Time < 1 || p.Time > maxKDFTime || p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxKDFMemKiB {
		return nil, fmt.Errorf("%w: %s has a key slot this build does not accept", ErrRefused, keyFileName)
	}
	return kf, nil
}

// unwrap opens the folder key with the passphrase (and keyfile).
func (kf *keyFile) unwrap(passphrase, keyfile []byte) ([]byte, error) {
	s := kf.slot[:]
	if s[0] == slotPassKey && len(keyfile) == 0 {
		return nil, ErrKeyfileRequired
	}
	if s[0] == slotPass {
		keyfile = nil
	}
	p := vaultfmt.KDFParams{Threads: s[2], Time: binary.LittleEndian.Uint32(s[4:]), MemoryKiB: binary.LittleEndian.Uint32(s[8:])}
	kek := slotKEK(s[0], p, s[12:28], passphrase, keyfile)
	key, err := open(kek, s[28:], slotAAD(kf.folderID, s[:slotHeadSize]))
	if err != nil {
		return nil, ErrWrongPassphrase
	}
	return key, nil
}

func readKeyFile(dir string) (*keyFile, error) {
	b, err := os.ReadFile(filepath.Join(dir, keyFileName))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("devsync: %s holds no %s: it is not a sync folder yet (run `compartment sync init %s` on the first device), or the sync engine has not copied it here yet", dir, keyFileName, dir)
		}
		return nil, fmt.Errorf("devsync: read %s: %w", keyFileName, err)
	}
	return decodeKeyFile(b)
}
