package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestServerCommand: the bare name only when PATH's compartment is this
// very file (through a symlink too); the resolved path otherwise.
func TestServerCommand(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "real", "compartment")
	os.MkdirAll(filepath.Dir(self), 0o755)
	writeExe := func(p string) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExe(self)
	link := filepath.Join(dir, "bin", "compartment")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(self, link); err != nil {
		t.Skip("no symlinks here")
	}
	onPath := func(p string) Env {
		return Env{LookPath: func(string) (string, error) {
			if p == "" {
				return "", errors.New("not found")
			}
			return p, nil
		}}
	}
	if got := ServerCommand(onPath(link), self); got != "compartment" {
		t.Errorf("PATH's compartment links to this file: %q, want the bare name", got)
	}
	if got := ServerCommand(onPath(self), link); got != "compartment" {
		t.Errorf("run through the link, PATH names the file: %q, want the bare name", got)
	}
	other := filepath.Join(dir, "other-compartment")
	writeExe(other)
	if got := ServerCommand(onPath(other), link); got != self {
		t.Errorf("another compartment on PATH: %q, want this file's resolved path %s", got, self)
	}
	if got := ServerCommand(onPath(""), self); got != self {
		t.Errorf("none on PATH: %q, want %s", got, self)
	}
}
