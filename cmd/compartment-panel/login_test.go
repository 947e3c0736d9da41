package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoginEntries(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	menu := filepath.Join(dir, "data", "applications", desktopName)
	auto := filepath.Join(dir, "config", "autostart", desktopName)
	var out bytes.Buffer

	if err := loginCmd("on", &out); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{menu, auto} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("--login on did not write %s: %v", p, err)
		}
		if !strings.HasPrefix(string(b), "[Desktop Entry]\n") || !strings.Contains(string(b), "\nExec=") || !strings.Contains(string(b), " --show\n") {
			t.Errorf("%s is not a desktop entry that starts the panel:\n%s", p, b)
		}
	}
	out.Reset()
	if err := loginCmd("status", &out); err != nil || !strings.Contains(out.String(), "start at login: on") {
		t.Errorf("status after on: %q %v", out.String(), err)
	}

	if err := loginCmd("off", &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(auto); !os.IsNotExist(err) {
		t.Errorf("--login off left %s (%v)", auto, err)
	}
	if _, err := os.Stat(menu); err != nil {
		t.Errorf("--login off removed the menu entry too: %v", err)
	}
	out.Reset()
	if err := loginCmd("status", &out); err != nil || !strings.Contains(out.String(), "start at login: off") || !strings.Contains(out.String(), "applications menu: on") {
		t.Errorf("status after off: %q %v", out.String(), err)
	}
	if err := loginCmd("sometimes", &out); err == nil {
		t.Error("--login sometimes was accepted")
	}
}

func TestDesktopEntryQuotesPaths(t *testing.T) {
	got := desktopEntry(`/opt/my apps/compartment-panel`)
	if !strings.Contains(got, "Exec=\"/opt/my apps/compartment-panel\" --show\n") {
		t.Errorf("a path with a space is not quoted:\n%s", got)
	}
}
