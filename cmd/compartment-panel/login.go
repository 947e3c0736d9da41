package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// The panel's desktop entries (freedesktop.org Desktop Entry files): one in
// the applications menu, always written by --login on, and one in
// autostart that --login on adds and --login off removes.
const desktopName = "compartment-panel.desktop"

func dataHome() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share")
}

func configHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config")
}

func menuEntryPath() string { return filepath.Join(dataHome(), "applications", desktopName) }
func autostartPath() string { return filepath.Join(configHome(), "autostart", desktopName) }

// desktopEntry is the entry's text; exe is quoted as the Desktop Entry
// specification asks for an argument with spaces or reserved characters.
func desktopEntry(exe string) string {
	if strings.ContainsAny(exe, " \t\"\\$`") {
		// Escaped once for the Exec key's quoting, then once more
		// because the key's value is itself a string.
		r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "$", `\\$`, "`", "\\\\`")
		exe = `"` + r.Replace(exe) + `"`
	}
	return "[Desktop Entry]\nType=Application\nName=Compartment\n" +
		"Comment=Unlock, lock and connect agents to your encrypted memory\n" +
		"Exec=" + exe + " --show\nTerminal=false\nCategories=Utility;Security;\n"
}

func writeEntry(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	return nil
}

// loginCmd is --login on|off|status.
func loginCmd(arg string, out io.Writer) error {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return errors.New("--login writes freedesktop.org entries, which only Linux and the BSDs read; on Windows put a shortcut to the panel in shell:startup, on macOS add it under Login Items")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("login: finding this program: %w", err)
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	switch arg {
	case "on":
		text := desktopEntry(exe)
		if err := writeEntry(menuEntryPath(), text); err != nil {
			return err
		}
		if err := writeEntry(autostartPath(), text); err != nil {
			return err
		}
		fmt.Fprintf(out, "the panel starts when you log in (%s) and is in the applications menu (%s)\n", autostartPath(), menuEntryPath())
	case "off":
		if err := os.Remove(autostartPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("login: %w", err)
		}
		if err := writeEntry(menuEntryPath(), desktopEntry(exe)); err != nil {
			return err
		}
		fmt.Fprintf(out, "the panel no longer starts when you log in; it stays in the applications menu (%s)\n", menuEntryPath())
	case "status":
		_, err := os.Stat(autostartPath())
		on := err == nil
		_, err = os.Stat(menuEntryPath())
		menu := err == nil
		fmt.Fprintf(out, "start at login: %s (%s)\napplications menu: %s (%s)\n", onOff(on), autostartPath(), onOff(menu), menuEntryPath())
	default:
		return fmt.Errorf("--login %q: use on, off or status", arg)
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
