package session

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestEnsurePrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := ensurePrivateDir(dir, true); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	if err := ensurePrivateDir(dir, true); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", fi.Mode().Perm())
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := ensurePrivateDir(link, false); err == nil {
		t.Fatal("a symlink was accepted as the private directory")
	}
}

func TestBootSecret(t *testing.T) {
	dir := t.TempDir()
	a, err := bootSecret(dir, "boot-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := bootSecret(dir, "boot-1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, again) || len(a) != secretSize {
		t.Fatal("the secret changed within one boot")
	}
	b, err := bootSecret(dir, "boot-2")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("a new boot kept the old secret")
	}
	fi, err := os.Stat(filepath.Join(dir, bootSecretFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("boot secret mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestDefaultDirIsRAM: without the test hooks, the secret goes to tmpfs
// (where the machine has one) and nowhere else.
func TestDefaultDirIsRAM(t *testing.T) {
	t.Setenv(EnvBootSecretDir, "")
	if !onRAM("/dev/shm") {
		t.Skip("/dev/shm is not tmpfs here")
	}
	existed := map[string]bool{}
	for _, d := range ramDirCandidates() {
		_, err := os.Lstat(d)
		existed[d] = err == nil
	}
	dir, err := bootSecretDir()
	if err != nil {
		t.Fatal(err)
	}
	if !existed[dir] {
		t.Cleanup(func() { os.Remove(dir) })
	}
	if !onRAM(dir) {
		t.Fatalf("boot secret directory %s is not on tmpfs", dir)
	}
}
