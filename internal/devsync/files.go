package devsync

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// ourName matches the only names a reader reads (FORMAT.md 10); everything
// else in the folder belongs to a sync engine, a user or a conflict.
var ourName = regexp.MustCompile(`^([0-9a-f]{32})\.(dev|log)$`)

// listFolder returns the device ids that have a .dev and those that have a
// .log in dir, ignoring every other name.
func listFolder(dir string) (devs, logs map[[16]byte]bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("devsync: list the sync folder %s: %w", dir, err)
	}
	devs, logs = map[[16]byte]bool{}, map[[16]byte]bool{}
	for _, e := range ents {
		m := ourName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		var id [16]byte
		hex.Decode(id[:], []byte(m[1]))
		if m[2] == "dev" {
			devs[id] = true
		} else {
			logs[id] = true
		}
	}
	return devs, logs, nil
}

func devPath(dir string, id [16]byte) string {
	return filepath.Join(dir, hex.EncodeToString(id[:])+".dev")
}
func logPath(dir string, id [16]byte) string {
	return filepath.Join(dir, hex.EncodeToString(id[:])+".log")
}
func tmpPath(dir string, id [16]byte, ext string) string {
	return filepath.Join(dir, "."+hex.EncodeToString(id[:])+"."+ext+".tmp")
}

// writeAtomic writes b to path through tmp: write, fsync, rename, fsync
// the directory, so a reader (and a sync engine) sees the old file or the
// new one, never a mix.
func writeAtomic(path, tmp string, b []byte) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be fsynced there; the rename is durable on NTFS
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !strings.Contains(err.Error(), "invalid argument") {
		return err
	}
	return nil
}

func shortID(id [16]byte) string { return hex.EncodeToString(id[:4]) }
