package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportFile: the export lands in a new owner-only file with one line
// per memory; an existing file is never overwritten; a failed export
// leaves no file behind.
func TestExportFile(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	h.store(v, StoreRequest{Text: "The boiler was serviced in March", Source: "test"})
	h.store(v, StoreRequest{Text: "The spare key is under the blue pot", Source: "test"})
	out := filepath.Join(t.TempDir(), "export.jsonl")
	n, err := ExportFile(v, out)
	if err != nil || n != 2 {
		t.Fatalf("export: %d lines, %v", n, err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(out)
	if bytes.Count(b, []byte{'\n'}) != 2 || !strings.Contains(string(b), "blue pot") {
		t.Fatalf("export file holds:\n%s", b)
	}
	if _, err := ExportFile(v, out); err == nil || !strings.Contains(err.Error(), "exists; nothing was written") {
		t.Fatalf("over an existing file: %v", err)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, b) {
		t.Fatal("a refused export changed the file")
	}
	v.Close()
	failed := filepath.Join(t.TempDir(), "failed.jsonl")
	if _, err := ExportFile(v, failed); err == nil {
		t.Fatal("a closed vault exported")
	}
	if _, err := os.Stat(failed); !os.IsNotExist(err) {
		t.Fatalf("a failed export left its file: %v", err)
	}
}

// TestPurge: a dry run lists the vault, its settings and its lock and
// deletes nothing; the purge deletes exactly those, and the files beside
// them that are not the vault's stay.
func TestPurge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.vault")
	other := filepath.Join(dir, "notes.txt")
	sidecar := path + ".sync.json"
	for _, p := range []string{path, ConfigPath(path), path + ".lock", TrustedKeysPath(path), path + ".build", sidecar, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{path, ConfigPath(path), path + ".lock", TrustedKeysPath(path), path + ".build", sidecar}
	gone, err := Purge(path, true, sidecar)
	if err != nil || strings.Join(gone, "|") != strings.Join(want, "|") {
		t.Fatalf("dry run: %v %v", gone, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("a dry run deleted the vault")
	}
	if gone, err = Purge(path, false, sidecar); err != nil || len(gone) != len(want) {
		t.Fatalf("purge: %v %v", gone, err)
	}
	for _, p := range want {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", p, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("purge deleted a file that is not the vault's: %v", err)
	}
	if gone, err = Purge(path, false, sidecar); err != nil || len(gone) != 0 {
		t.Fatalf("again: %v %v", gone, err)
	}
}
