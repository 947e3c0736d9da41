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
	"time"

	"gioui.org/f32"
	"gioui.org/io/input"
	"gioui.org/io/key"
	"gioui.org/io/pointer"
	"gioui.org/io/semantic"
	"gioui.org/layout"
	"gioui.org/op"
	"gioui.org/unit"
	"gioui.org/widget"

	"github.com/compartment/compartment/internal/hermetic"
)

const testPass = "correct horse battery staple"

// cliBin is the compartment CLI built once for every test here: the panel
// drives the real program, as it does for its users. panelBin is this
// program, for the test of the real window. Both are built before any test
// moves HOME (which would move Go's build cache too).
var cliBin, panelBin string

func TestMain(m *testing.M) {
	hermetic.Clear()
	// The suite's own setting, inherited by the CLI the panel runs: a wrong
	// passphrase pauses 100 ms, not the 5 s users get.
	os.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
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

// newHome makes a private home and returns a CLI for a vault there that
// does not exist yet.
func newHome(t *testing.T) *CLI {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("COMPARTMENT_PASSPHRASE", "")
	return &CLI{Bin: cliBin, Vault: filepath.Join(home, "memory.vault")}
}

// newVault makes a vault with one memory in a private home and returns a
// CLI for it, locked.
func newVault(t *testing.T) *CLI {
	t.Helper()
	cli := newHome(t)
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

// driver runs the panel in-process the way its window does (layout, then
// the input router) and acts on it with synthetic pointer and key events
// through Gio's input router, finding widgets by their text in the frame's
// semantic tree (what a screen reader reads), so a test presses what a
// person sees.
type driver struct {
	t   *testing.T
	p   *Panel
	r   input.Router
	ops op.Ops
}

func newDriver(t *testing.T, cli *CLI) *driver {
	d := &driver{t: t, p: NewPanel(cli, func() {})}
	d.p.Refresh()
	d.p.Wait()
	d.frame()
	return d
}

func (d *driver) frame() {
	d.ops.Reset()
	gtx := layout.Context{Ops: &d.ops, Now: time.Now(), Metric: unit.Metric{PxPerDp: 1, PxPerSp: 1},
		Constraints: layout.Exact(image.Pt(width, height)), Source: d.r.Source()}
	d.p.Layout(gtx)
	d.r.Frame(&d.ops)
}

// settle waits for the action in flight, then draws twice: once to take
// in the new state, once for the widgets it moved.
func (d *driver) settle() {
	d.p.Wait()
	d.frame()
	d.frame()
}

// pressable reports whether the panel has a widget labelled label that
// takes a click now.
func (d *driver) pressable(label string) bool {
	w, ok := d.lookup(label, 0)
	return ok && !w.Disabled
}

// disabled reports whether the panel shows a widget labelled label that
// takes no click now.
func (d *driver) disabled(label string) bool {
	w, ok := d.lookup(label, 0)
	return ok && w.Disabled
}

// fields counts the text fields in the window (the router lists every
// node of the semantic tree once).
func (d *driver) fields() int {
	n := 0
	for _, node := range d.r.AppendSemantics(nil) {
		if node.Desc.Class == semantic.Editor {
			n++
		}
	}
	return n
}

// find returns the clickable widget whose text is label, else the first
// whose text starts with it.
func (d *driver) find(label string) input.SemanticDesc {
	d.t.Helper()
	return d.nth(label, 0)
}

// nth is find's i-th widget (from 0, in the window's order) among those
// whose text is label.
func (d *driver) nth(label string, i int) input.SemanticDesc {
	d.t.Helper()
	w, ok := d.lookup(label, i)
	if !ok {
		d.t.Fatalf("no %q (#%d) to press in the panel", label, i)
	}
	return w
}

func (d *driver) lookup(label string, i int) (input.SemanticDesc, bool) {
	var walk func(n input.SemanticNode) string
	walk = func(n input.SemanticNode) string {
		s := n.Desc.Label
		for _, c := range n.Children {
			s += walk(c)
		}
		return s
	}
	var exact, prefix []input.SemanticDesc
	for _, n := range d.r.AppendSemantics(nil) {
		if n.Desc.Gestures&input.ClickGesture == 0 || holdsClickable(n) {
			continue // not clickable, or a container (the window, the list)
		}
		text := strings.TrimSpace(walk(n))
		switch {
		case text == label:
			exact = append(exact, n.Desc)
		case strings.HasPrefix(text, label):
			prefix = append(prefix, n.Desc)
		}
	}
	switch {
	case i < len(exact):
		return exact[i], true
	case len(exact) == 0 && i < len(prefix):
		return prefix[i], true
	}
	return input.SemanticDesc{}, false
}

func holdsClickable(n input.SemanticNode) bool {
	for _, c := range n.Children {
		if c.Desc.Gestures&input.ClickGesture != 0 || holdsClickable(c) {
			return true
		}
	}
	return false
}

// click presses and releases the primary button over the widget labelled
// label, as a mouse does.
func (d *driver) click(label string) {
	d.t.Helper()
	d.press(d.find(label), label)
}

func (d *driver) press(w input.SemanticDesc, label string) {
	d.t.Helper()
	if w.Disabled {
		d.t.Fatalf("%q is disabled", label)
	}
	c := w.Bounds.Min.Add(w.Bounds.Max).Div(2)
	pos := f32.Pt(float32(c.X), float32(c.Y))
	d.r.Queue(
		pointer.Event{Kind: pointer.Move, Source: pointer.Mouse, Position: pos},
		pointer.Event{Kind: pointer.Press, Source: pointer.Mouse, Buttons: pointer.ButtonPrimary, Position: pos},
		pointer.Event{Kind: pointer.Release, Source: pointer.Mouse, Position: pos},
	)
	// A press that moves the focus (a radio button) holds the rest of
	// the events back to the next frame.
	d.frame()
	d.frame()
}

// typeInto moves the keyboard focus to a text field and types s into it.
// (Gio's editors have no text in the semantic tree, so they are found by
// the panel's own field.)
func (d *driver) typeInto(e *widget.Editor, s string) {
	d.t.Helper()
	d.r.Source().Execute(key.FocusCmd{Tag: e})
	d.frame()
	if !d.r.Source().Focused(e) {
		d.t.Fatal("the text field did not take the focus")
	}
	d.r.Queue(key.EditEvent{Text: s})
	d.frame()
}

// enter presses Return in the focused field.
func (d *driver) enter() {
	d.r.Queue(key.Event{Name: key.NameReturn, State: key.Press}, key.Event{Name: key.NameReturn, State: key.Release})
	d.frame()
}

func TestPanelDrivesTheVault(t *testing.T) {
	cli := newVault(t)
	d := newDriver(t, cli)
	if v := d.p.View(); !strings.HasPrefix(v.State, "Locked") {
		t.Fatalf("panel on a locked vault says %q", v.State)
	}
	// Without two-factor unlock there is no keyfile to ask for.
	if n := d.fields(); n != 1 {
		t.Fatalf("a locked passphrase-only vault: %d text fields, want the passphrase's only", n)
	}

	// A wrong passphrase: the window shows it is waiting (and takes no
	// other action) while the CLI waits, then says what to do; the vault
	// stays locked.
	d.typeInto(&d.p.passEd, "not the passphrase")
	d.click("Unlock")
	if !d.p.Busy() || d.pressable("Refresh") || !d.pressable("Quit") {
		t.Error("while unlocking, the panel should show it is waiting, with its buttons disabled")
	}
	if d.p.passEd.Text() != "" {
		t.Error("the passphrase field should be cleared as soon as Unlock is pressed")
	}
	d.settle()
	if v := d.p.View(); !strings.Contains(v.Err, "Wrong passphrase") {
		t.Errorf("after a wrong passphrase the window says %q", v.Err)
	}
	if locked, _ := cliState(t, cli); !locked {
		t.Fatal("a wrong passphrase unlocked the vault")
	}

	// The right one, typed and submitted with Return while a refresh is
	// still running: the field stays live and the unlock runs after it.
	d.click("Refresh")
	if !d.p.Busy() {
		t.Fatal("Refresh should keep the panel busy while the CLI runs")
	}
	d.typeInto(&d.p.passEd, testPass)
	d.enter()
	d.settle()
	if locked, _ := cliState(t, cli); locked {
		t.Fatalf("Unlock left the vault locked; the window says %q", d.p.View().Err)
	}
	v := d.p.View()
	if v.Err != "" || !strings.HasPrefix(v.State, "Open") {
		t.Errorf("after Unlock: state %q, error %q", v.State, v.Err)
	}
	if !strings.Contains(v.Counts, "1 memory") || len(v.Recent) == 0 || !strings.Contains(v.Recent[0], "deploys on Fridays") {
		t.Errorf("after Unlock: counts %q, newest %q", v.Counts, v.Recent)
	}

	// Settings.
	if !d.find("Reference facts").Selected {
		t.Fatal("reference facts in search should start on")
	}
	d.click("Reference facts")
	d.settle()
	d.click("15 min")
	d.settle()
	_, cfg := cliState(t, cli)
	if cfg["include_reference_in_search"] != false || cfg["auto_lock_minutes"] != float64(15) {
		t.Errorf("after the setting changes the CLI reads include_reference_in_search=%v auto_lock_minutes=%v", cfg["include_reference_in_search"], cfg["auto_lock_minutes"])
	}
	if d.find("Reference facts").Selected || !d.find("15 min").Selected {
		t.Error("the window does not show the settings it changed")
	}
	d.click("never")
	d.settle()
	if _, cfg := cliState(t, cli); cfg["auto_lock_minutes"] != float64(0) {
		t.Errorf("auto-lock never: the CLI reads %v", cfg["auto_lock_minutes"])
	}
	d.click("Capture hook")
	d.settle()
	if !strings.Contains(string(mustRun(t, cli, "", "hook", "status", "--json")), `"installed": true`) || !d.find("Capture hook").Selected {
		t.Errorf("the capture hook box did not install the hook: %q", d.p.View().Err)
	}

	// Connect an agent, as `compartment integrate hermes` does.
	d.press(d.nth("Connect", 1), "Hermes Agent's Connect") // the second agent
	d.settle()
	if v := d.p.View(); v.Agents[1] != "Hermes Agent: connected" {
		t.Errorf("after Connect: %q (error %q)", v.Agents[1], v.Err)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".hermes", "config.yaml")); err != nil {
		t.Errorf("Connect did not write Hermes's configuration: %v", err)
	}

	// Lock.
	d.click("Lock")
	d.settle()
	v = d.p.View()
	if locked, _ := cliState(t, cli); !locked || !strings.HasPrefix(v.State, "Locked") {
		t.Errorf("after Lock: CLI locked=%v, window %q", locked, v.State)
	}
	if len(v.Recent) != 0 {
		t.Errorf("a locked panel still shows memories: %q", v.Recent)
	}
	if d.pressable("Lock") || !d.pressable("Unlock") {
		t.Errorf("on a locked vault Unlock should take a click and Lock none (Lock %v, Unlock %v)", d.pressable("Lock"), d.pressable("Unlock"))
	}
}

func TestPanelChangesPassphrase(t *testing.T) {
	cli := newVault(t)
	d := newDriver(t, cli)
	change := func(old, nw, again string) {
		d.click("Change passphrase")
		d.typeInto(&d.p.oldEd, old)
		d.typeInto(&d.p.newEd, nw)
		d.typeInto(&d.p.againEd, again)
		d.click("Change")
		d.settle()
	}
	change(testPass, "a brand new passphrase", "a different one")
	if v := d.p.View(); !strings.Contains(v.Err, "differ") {
		t.Fatalf("two different new passphrases: the window says %q", v.Err)
	}
	d.click("Cancel")
	change("wrong old one", "a brand new passphrase", "a brand new passphrase")
	if d.p.View().Err == "" {
		t.Fatal("a wrong current passphrase changed nothing but showed no error")
	}
	change(testPass, "a brand new passphrase", "a brand new passphrase")
	if v := d.p.View(); v.Err != "" {
		t.Fatalf("changing the passphrase: %s", v.Err)
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
	if img.Bounds().Dx() != width || img.Bounds().Dy() != height || distinctColours(img) < 8 {
		t.Fatalf("the rendered panel is %v with %d colours", img.Bounds(), distinctColours(img))
	}
	// Mostly the white page, with dark text and the theme's blue buttons
	// (Unlock, Connect) on it.
	white, dark, blue := colourShares(img)
	if white < 0.6 || dark < 0.002 || blue < 0.02 {
		t.Fatalf("the rendered panel is %.0f%% white, %.1f%% dark, %.1f%% blue; want a white page with text and blue buttons", 100*white, 100*dark, 100*blue)
	}
}

// colourShares returns the shares of near-white, near-black and the
// theme's blue (material's 0x3f51b5) pixels.
func colourShares(img image.Image) (white, dark, blue float64) {
	b := img.Bounds()
	var n float64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			n++
			switch {
			case r > 240 && g > 240 && bl > 240:
				white++
			case r < 80 && g < 80 && bl < 80:
				dark++
			case r < 0x50 && g > 0x48 && g < 0x5a && bl > 0xa8 && bl < 0xc0:
				blue++
			}
		}
	}
	return white / n, dark / n, blue / n
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

// TestPanelTwoFactor: a vault with two-factor unlock gets a keyfile field,
// and what is typed there unlocks it. The keyfile is moved after 2fa
// enable, so the location the CLI remembered no longer serves and only the
// path typed in the panel can.
func TestPanelTwoFactor(t *testing.T) {
	cli := newVault(t)
	kf := filepath.Join(t.TempDir(), "memory.keyfile")
	mustRun(t, cli, testPass+"\n", "--keyfile", kf, "2fa", "enable", "--passphrase-stdin")
	moved := filepath.Join(t.TempDir(), "on-the-stick.keyfile")
	if err := os.Rename(kf, moved); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, cli)
	if n := d.fields(); n != 2 || !d.p.View().NeedKeyfile {
		t.Fatalf("a locked two-factor vault: %d text fields, want passphrase and keyfile", n)
	}

	d.typeInto(&d.p.passEd, testPass)
	d.click("Unlock")
	d.settle()
	if v := d.p.View(); !strings.Contains(v.Err, "Keyfile field") {
		t.Errorf("Unlock without the keyfile: the window says %q", v.Err)
	}
	if locked, _ := cliState(t, cli); !locked {
		t.Fatal("the passphrase alone unlocked a two-factor vault")
	}

	d.typeInto(&d.p.passEd, testPass)
	d.typeInto(&d.p.keyEd, moved)
	d.click("Unlock")
	d.settle()
	if locked, _ := cliState(t, cli); locked {
		t.Fatalf("passphrase and keyfile left the vault locked; the window says %q", d.p.View().Err)
	}
	if v := d.p.View(); v.Err != "" || !strings.HasPrefix(v.State, "Open") || d.fields() != 0 {
		t.Errorf("after Unlock: state %q, error %q, %d text fields", v.State, v.Err, d.fields())
	}
	var tfa struct {
		Keyfile string `json:"keyfile"`
	}
	if err := json.Unmarshal(mustRun(t, cli, "", "2fa", "status", "--json"), &tfa); err != nil || tfa.Keyfile != moved {
		t.Errorf("after unlocking with the typed keyfile the CLI remembers %q (%v), want %q", tfa.Keyfile, err, moved)
	}
}

// TestPanelWithoutVault: with no vault the panel says how to make one and
// offers nothing to type or unlock; once one exists, Refresh shows it.
func TestPanelWithoutVault(t *testing.T) {
	cli := newHome(t)
	d := newDriver(t, cli)
	v := d.p.View()
	if !v.Missing || v.State != "No vault" || !strings.Contains(v.Err, "create one with `compartment init`") {
		t.Fatalf("no vault: state %q, error %q", v.State, v.Err)
	}
	if n := d.fields(); n != 0 {
		t.Errorf("no vault: %d text fields, want none", n)
	}
	for _, b := range []string{"Unlock", "Lock", "Change passphrase"} {
		if !d.disabled(b) {
			t.Errorf("no vault: %q should be shown greyed out", b)
		}
	}
	if !d.pressable("Refresh") {
		t.Fatal("no vault: Refresh should take a click")
	}
	mustRun(t, cli, testPass+"\n", "init", "--no-app", "--no-integrate", "--no-reference", "--passphrase-stdin")
	mustRun(t, cli, "", "lock")
	d.click("Refresh")
	d.settle()
	if v := d.p.View(); v.Missing || !strings.HasPrefix(v.State, "Locked") || v.Err != "" || d.fields() != 1 || !d.pressable("Unlock") {
		t.Errorf("after init and Refresh: state %q, error %q, %d text fields, Unlock pressable %v", v.State, v.Err, d.fields(), d.pressable("Unlock"))
	}
}
