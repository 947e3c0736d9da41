//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

const testPass = "correct horse battery staple"

// cliBin is the compartment CLI built once for every test here: the panel
// drives the real program, as it does for its users. panelBin is this
// program, for the test of the real window. Both are built before any test
// moves HOME (which would move Go's build cache too).
var cliBin, panelBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "panel-test-")
	if err != nil {
		panic(err)
	}
	cliBin = filepath.Join(dir, "compartment")
	build := exec.Command("go", "build", "-o", cliBin, "../compartment")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("building the CLI: " + err.Error() + "\n" + string(out))
	}
	panelBin = filepath.Join(dir, "compartment-panel")
	if out, err := exec.Command("go", "build", "-o", panelBin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("building the panel: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newVault makes a vault with one memory in a private home and returns a
// CLI for it, locked.
func newVault(t *testing.T) *CLI {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("COMPARTMENT_PASSPHRASE", "")
	cli := &CLI{Bin: cliBin, Vault: filepath.Join(home, "memory.vault")}
	mustRun(t, cli, testPass+"\n", "init", "--no-app", "--no-integrate", "--no-reference", "--passphrase-stdin")
	mustRun(t, cli, "", "store", "--source", "from chat", "The user deploys on Fridays only after the freeze lifts")
	mustRun(t, cli, "", "lock")
	t.Cleanup(func() { cli.run("", nil, "lock") })
	return cli
}

func mustRun(t *testing.T, cli *CLI, stdin string, args ...string) []byte {
	t.Helper()
	out, err := cli.run(stdin, nil, args...)
	if err != nil {
		t.Fatalf("compartment %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// cliState asks the CLI itself, not the panel, what the vault is now.
func cliState(t *testing.T, cli *CLI) (locked bool, cfg map[string]any) {
	t.Helper()
	var st struct {
		Locked bool `json:"locked"`
	}
	if err := json.Unmarshal(mustRun(t, cli, "", "status", "--json"), &st); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustRun(t, cli, "", "config", "get", "--json"), &cfg); err != nil {
		t.Fatal(err)
	}
	return st.Locked, cfg
}

func TestPanelDrivesTheVault(t *testing.T) {
	cli := newVault(t)
	p, _ := headless(cli)
	if !strings.HasPrefix(p.stateLabel.Text, "Locked") {
		t.Fatalf("panel on a locked vault says %q", p.stateLabel.Text)
	}

	// A wrong passphrase: the window is busy (progress showing, buttons
	// off) while the CLI waits, then says what to do; the vault stays locked.
	test.Type(p.passEntry, "not the passphrase")
	test.Tap(p.unlockBtn)
	if !p.progress.Visible() || !p.unlockBtn.Disabled() {
		t.Error("while unlocking, the progress bar should show and Unlock be disabled")
	}
	if p.passEntry.Text != "" {
		t.Error("the passphrase field should be cleared as soon as Unlock is pressed")
	}
	p.Wait()
	if !strings.Contains(p.errLabel.Text, "Wrong passphrase") || !p.errLabel.Visible() {
		t.Errorf("after a wrong passphrase the window says %q", p.errLabel.Text)
	}
	if locked, _ := cliState(t, cli); !locked {
		t.Fatal("a wrong passphrase unlocked the vault")
	}

	// The right one.
	test.Type(p.passEntry, testPass)
	test.Tap(p.unlockBtn)
	p.Wait()
	if locked, _ := cliState(t, cli); locked {
		t.Fatalf("Unlock left the vault locked; the window says %q", p.errLabel.Text)
	}
	if p.errLabel.Visible() || !strings.HasPrefix(p.stateLabel.Text, "Open") {
		t.Errorf("after Unlock: state %q, error %q", p.stateLabel.Text, p.errLabel.Text)
	}
	if !strings.Contains(p.countLabel.Text, "1 memory") || !strings.Contains(p.recent[0].Text, "deploys on Fridays") {
		t.Errorf("after Unlock: counts %q, newest %q", p.countLabel.Text, p.recent[0].Text)
	}

	// Settings.
	if !p.refCheck.Checked {
		t.Fatal("reference facts in search should start on")
	}
	test.Tap(p.refCheck)
	p.Wait()
	p.autoLock.SetSelected("15 minutes")
	p.Wait()
	_, cfg := cliState(t, cli)
	if cfg["include_reference_in_search"] != false || cfg["auto_lock_minutes"] != float64(15) {
		t.Errorf("after the setting changes the CLI reads include_reference_in_search=%v auto_lock_minutes=%v", cfg["include_reference_in_search"], cfg["auto_lock_minutes"])
	}
	p.autoLock.SetSelected("never")
	p.Wait()
	if _, cfg := cliState(t, cli); cfg["auto_lock_minutes"] != float64(0) {
		t.Errorf("auto-lock never: the CLI reads %v", cfg["auto_lock_minutes"])
	}
	test.Tap(p.hookCheck)
	p.Wait()
	if !strings.Contains(string(mustRun(t, cli, "", "hook", "status", "--json")), `"installed": true`) || !p.hookCheck.Checked {
		t.Errorf("the capture hook box did not install the hook: %q", p.errLabel.Text)
	}

	// Connect an agent, as `compartment integrate hermes` does.
	test.Tap(p.agentBtns["hermes"])
	p.Wait()
	if !strings.Contains(p.agentLabels["hermes"].Text, ": connected") {
		t.Errorf("after Connect: %q (error %q)", p.agentLabels["hermes"].Text, p.errLabel.Text)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".hermes", "config.yaml")); err != nil {
		t.Errorf("Connect did not write Hermes's configuration: %v", err)
	}

	// Lock.
	test.Tap(p.lockBtn)
	p.Wait()
	if locked, _ := cliState(t, cli); !locked || !strings.HasPrefix(p.stateLabel.Text, "Locked") {
		t.Errorf("after Lock: CLI locked=%v, window %q", locked, p.stateLabel.Text)
	}
	if p.recent[0].Text != "" {
		t.Errorf("a locked panel still shows a memory: %q", p.recent[0].Text)
	}
}

func TestPanelChangesPassphrase(t *testing.T) {
	cli := newVault(t)
	p, _ := headless(cli)
	p.Rekey("wrong old one", "a brand new passphrase")
	p.Wait()
	if !p.errLabel.Visible() {
		t.Fatal("a wrong current passphrase changed nothing but showed no error")
	}
	p.Rekey(testPass, "a brand new passphrase")
	p.Wait()
	if p.errLabel.Visible() {
		t.Fatalf("changing the passphrase: %s", p.errLabel.Text)
	}
	if err := cli.Unlock(testPass); err == nil {
		t.Fatal("the old passphrase still unlocks the vault")
	}
	if err := cli.Unlock("a brand new passphrase"); err != nil {
		t.Fatalf("the new passphrase does not unlock: %v", err)
	}
}

func TestRenderWritesPNG(t *testing.T) {
	cli := newVault(t)
	out := filepath.Join(t.TempDir(), "panel.png")
	if err := renderCmd(cli, out); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, out)
	if img.Bounds().Dx() < 300 || img.Bounds().Dy() < 400 || distinctColours(img) < 8 {
		t.Fatalf("the rendered panel is %v with %d colours", img.Bounds(), distinctColours(img))
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func distinctColours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
