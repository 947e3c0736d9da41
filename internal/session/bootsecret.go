package session

// The per-boot secret: 32 random bytes in a RAM-only file, made on first use
// after each boot. The file records the boot id it was made for, so a
// secret left over from another boot id (possible only with the test hook,
// since tmpfs is empty after a reboot) is replaced rather than reused.
//
//	boot.secret (mode 0600), little-endian:
//	  0   8  magic "CMPBOOT1"
//	  8   2  n = length of the boot id
//	  10  n  boot id, as read
//	  10+n 32 secret
//
// Part of the format: do not change.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const (
	bootMagic      = "CMPBOOT1"
	bootSecretFile = "boot.secret"
	bootLockFile   = "boot.lock"
	secretSize     = 32
)

// bootID reads the id of this boot (or the test hook's file).
func bootID() (string, error) {
	src := procBootID
	if f := os.Getenv(EnvBootIDFile); f != "" {
		src = f
	} else if err := noBootSessions(runtime.GOOS); err != nil {
		return "", err
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("session: read boot id: %w", err)
	}
	id := strings.TrimSpace(string(raw))
	if id == "" || len(id) > 256 {
		return "", fmt.Errorf("session: boot id in %s is empty or too long", src)
	}
	return id, nil
}

// bootSecret returns this boot's secret from dir, creating it when there is
// none for boot. The lock file keeps two processes from each making one and
// sealing credentials under a secret the other then replaces.
func bootSecret(dir, boot string) ([]byte, error) {
	lock, err := os.OpenFile(filepath.Join(dir, bootLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: boot secret lock: %w", err)
	}
	defer lock.Close()
	if err := lockExclusive(lock); err != nil {
		return nil, fmt.Errorf("session: boot secret lock: %w", err)
	}
	path := filepath.Join(dir, bootSecretFile)
	secret, err := readBootSecret(path, boot)
	if err == nil || !errors.Is(err, errStaleSecret) {
		return secret, err
	}
	return writeBootSecret(path, boot)
}

// errStaleSecret means there is no usable secret for this boot yet.
var errStaleSecret = errors.New("session: no boot secret for this boot")

func readBootSecret(path, boot string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errStaleSecret
	}
	if err != nil {
		return nil, fmt.Errorf("session: read boot secret: %w", err)
	}
	if len(raw) < 10 || string(raw[:8]) != bootMagic {
		return nil, errStaleSecret
	}
	n := int(binary.LittleEndian.Uint16(raw[8:10]))
	if len(raw) != 10+n+secretSize || !bytes.Equal(raw[10:10+n], []byte(boot)) {
		return nil, errStaleSecret
	}
	return raw[10+n:], nil
}

// writeBootSecret draws a new secret and replaces the file with it (tmp
// and rename, so a reader sees the old or the new one whole).
func writeBootSecret(path, boot string) ([]byte, error) {
	secret := make([]byte, secretSize)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("session: draw boot secret: %w", err)
	}
	buf := make([]byte, 0, 10+len(boot)+secretSize)
	buf = append(buf, bootMagic...)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(boot)))
	buf = append(append(buf, boot...), secret...)
	if err := writeAtomic(path, buf); err != nil {
		return nil, fmt.Errorf("session: write boot secret: %w", err)
	}
	return secret, nil
}

// writeAtomic writes data (mode 0600) through a tmp file and a rename, so
// the name always holds a whole file, and every write gets a new inode
// (which is how lock stamps are told apart). No fsync: these files live in
// RAM or are worthless after a crash anyway.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
