//go:build linux

package vaultfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadOnlyMediaWithoutLockFile: on read-only media with no .lock file
// beside the vault, reading still opens it; writes are refused and nothing
// changes. Before, opening failed on creating the lock file. As root the
// media is a tmpfs remounted read-only (skipped where mounting is not
// allowed); as a user, a directory and file the user may not write.
func TestReadOnlyMediaWithoutLockFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test.vault")
	root := os.Geteuid() == 0
	if root {
		if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=16m"); err != nil {
			t.Skipf("root, and cannot mount a tmpfs to make read-only media: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(dir, 0) })
	}
	c := newCollector()
	v, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: fastKDF}}, c)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, c, put(1, "one"))
	v.Close()
	if err := os.Remove(path + ".lock"); err != nil {
		t.Fatal(err)
	}
	if root {
		if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			t.Skipf("cannot remount read-only: %v", err)
		}
	} else {
		os.Chmod(path, 0o400)
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}
	before := readFile(t, path)
	v2, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if !v2.ReadOnly() {
		t.Fatal("the handle is not read-only")
	}
	if err := v2.Append([]Change{put(2, "two")}); err == nil {
		t.Fatal("append to a read-only vault succeeded")
	}
	if err := v2.Refresh(); err != nil {
		t.Fatalf("refresh without a lock file: %v", err)
	}
	v2.Close()
	if !bytes.Equal(readFile(t, path), before) {
		t.Fatal("read-only vault changed")
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("a lock file appeared: %v", err)
	}
	if !root {
		// A vault file this user may write still needs its lock.
		os.Chmod(path, 0o600)
		if err := openErr(path, Unlock{Passphrase: testPass}); err == nil || !strings.Contains(err.Error(), "lock file") {
			t.Fatalf("a writable vault with no way to lock it: %v, want the lock file error", err)
		}
	}
}
