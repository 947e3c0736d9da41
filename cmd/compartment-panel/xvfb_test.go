//go:build cgo && linux

package main

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWindowUnderXvfb starts the real panel window on a virtual X display
// (Xvfb) against a real vault, takes screenshots of it locked and open,
// and drives it with synthetic X input (xdotool): it types the passphrase
// and presses Return, clicks a setting and clicks Lock, checking the
// vault's state from the CLI after each. Where to click comes from the
// same panel laid out in-process for the same state (the window is the
// same size at scale 1). Set COMPARTMENT_PANEL_SHOTS to a directory to
// keep the screenshots.
func TestWindowUnderXvfb(t *testing.T) {
	for _, tool := range []string{"Xvfb", "import", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed; run make setup (scripts/setup.d/40-panel-deps.sh)", tool)
		}
	}
	start := time.Now()
	cli := newVault(t)
	display := startXvfb(t)
	t.Logf("%.1fs: Xvfb on %s", time.Since(start).Seconds(), display)

	win := exec.Command(panelBin, "--vault", cli.Vault, "--cli", cli.Bin)
	win.Env = append(os.Environ(), "DISPLAY="+display, "LANG=C.UTF-8")
	var logb strings.Builder
	win.Stdout, win.Stderr = &logb, &logb
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Process.Kill(); win.Wait() })

	shots := os.Getenv("COMPARTMENT_PANEL_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	locked := screenshot(t, display, filepath.Join(shots, "panel-locked.png"), nil)
	t.Logf("%.1fs: locked window captured", time.Since(start).Seconds())
	x := &xinput{t: t, display: display, id: xdo(t, display, "search", "--sync", "--name", "^Compartment$")}
	x.origin()

	// Unlock: the window has put the keyboard focus in the passphrase
	// field; type into it and press Return.
	x.run("mousemove", "--window", x.id, "240", "700")
	x.run("type", "--delay", "20", testPass)
	x.run("key", "Return")
	waitFor(t, "the vault to be open after typing the passphrase", func() bool { l, _ := cliState(t, cli); return !l })
	open := screenshot(t, display, filepath.Join(shots, "panel-open.png"), locked)
	t.Logf("%.1fs: unlocked through the window; open window captured", time.Since(start).Seconds())
	if differing(locked, open) < 500 {
		t.Fatalf("the window looks the same locked and open (panel output: %s)", logb.String())
	}

	// A setting: untick "Reference facts in search".
	x.click(cli, "Reference facts")
	waitFor(t, "include_reference_in_search to be false", func() bool {
		_, cfg := cliState(t, cli)
		return cfg["include_reference_in_search"] == false
	})
	// Lock.
	x.click(cli, "Lock")
	waitFor(t, "the vault to be locked after clicking Lock", func() bool { l, _ := cliState(t, cli); return l })
	screenshot(t, display, filepath.Join(shots, "panel-locked-again.png"), open)
	t.Logf("%.1fs: setting changed and locked through the window", time.Since(start).Seconds())
}

// TestInitStartsThePanel runs a real `compartment init` of fresh vaults:
// with a display it starts the panel (this package's build, beside the
// CLI) in a session of its own, so closing the terminal does not close
// it; with --no-app, or with no display, it starts none. The CLI starts
// the panel before init returns, so each check looks right after it.
func TestInitStartsThePanel(t *testing.T) {
	display := startXvfb(t)
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "COMPARTMENT_PASSPHRASE", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	initVault := func(name string, env []string, extra ...string) string {
		t.Helper()
		vault := filepath.Join(home, name)
		args := append([]string{"--vault", vault, "init", "--no-integrate", "--no-reference", "--passphrase-stdin"}, extra...)
		cmd := exec.Command(cliBin, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(testPass + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("compartment %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return vault
	}

	vault := initVault("display.vault", append(env, "DISPLAY="+display))
	pids := panelsFor(t, vault)
	for _, pid := range pids {
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	if len(pids) != 1 {
		t.Fatalf("init with a display started %d panels for its vault, want 1", len(pids))
	}
	if sid, self := session(t, pids[0]), session(t, os.Getpid()); sid != pids[0] || sid == self {
		t.Errorf("the panel (pid %d) is in session %d (the test's is %d); init should start it in a session of its own", pids[0], sid, self)
	}
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pids[0])); exe != panelBin {
		t.Errorf("init started %s, want the panel beside the CLI (%s)", exe, panelBin)
	}

	if n := len(panelsFor(t, initVault("no-app.vault", append(env, "DISPLAY="+display), "--no-app"))); n != 0 {
		t.Errorf("init --no-app started %d panels", n)
	}
	if n := len(panelsFor(t, initVault("no-display.vault", env))); n != 0 {
		t.Errorf("init without a display started %d panels", n)
	}
}

// panelsFor lists the running compartment-panel processes for vault.
func panelsFor(t *testing.T, vault string) []int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if filepath.Base(args[0]) == "compartment-panel" && strings.Contains(string(b), "--vault\x00"+vault+"\x00") {
			pids = append(pids, pid)
		}
	}
	// A panel that is starting a CLI command has, between fork and exec, a
	// child with its own command line: that child is not a second panel.
	var panels []int
	for _, pid := range pids {
		if !slices.Contains(pids, parentOf(pid)) {
			panels = append(panels, pid)
		}
	}
	return panels
}

// parentOf returns a process's parent id (/proc/PID/stat, field 4), or 0
// when the process has gone.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// session returns a process's session id (/proc/PID/stat, field 6).
func session(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// xinput sends synthetic X input to the panel's window.
type xinput struct {
	t       *testing.T
	display string
	id      string // the window's X id
	ox, oy  int    // its origin on the screen
}

func (x *xinput) run(args ...string) string {
	x.t.Helper()
	return xdo(x.t, x.display, args...)
}

// origin reads where the window is on the screen.
func (x *xinput) origin() {
	x.t.Helper()
	for _, l := range strings.Split(x.run("getwindowgeometry", "--shell", x.id), "\n") {
		if v, ok := strings.CutPrefix(l, "X="); ok {
			x.ox, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "Y="); ok {
			x.oy, _ = strconv.Atoi(v)
		}
	}
}

// still waits until two captures of the screen half a second apart are the
// same to the pixel: while the panel reloads after an action its spinner
// turns and its buttons take no clicks. (An open panel has no caret.)
func (x *xinput) still() {
	x.t.Helper()
	path := filepath.Join(x.t.TempDir(), "still.png")
	deadline := time.Now().Add(time.Minute)
	var prev image.Image
	for {
		out, err := exec.Command("import", "-display", x.display, "-window", "root", path).CombinedOutput()
		if err != nil {
			x.t.Fatalf("import: %v %s", err, out)
		}
		img := decodePNG(x.t, path)
		if prev != nil && differing(prev, img) == 0 {
			return
		}
		if time.Now().After(deadline) {
			x.t.Fatal("the window did not come to rest within a minute")
		}
		prev = img
		time.Sleep(500 * time.Millisecond)
	}
}

// click clicks the middle of the widget labelled label, placed where the
// same panel, laid out in-process for the vault's present state, has it.
func (x *xinput) click(cli *CLI, label string) {
	x.t.Helper()
	x.still()
	b := newDriver(x.t, cli).find(label).Bounds
	c := b.Min.Add(b.Max).Div(2)
	x.run("mousemove", strconv.Itoa(x.ox+c.X), strconv.Itoa(x.oy+c.Y), "click", "1")
}

func xdo(t *testing.T, display string, args ...string) string {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitFor polls cond for up to a minute (a wrong or right passphrase
// takes the vault's key derivation, and the machine may be busy).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// startXvfb starts a virtual display on a free number (Xvfb picks it and
// writes it to -displayfd) and stops it when the test ends.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "600x900x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb did not start")
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not report its display in 30 s")
	}
	return ""
}

// screenshot captures the whole display once the panel has drawn
// something and, if unlike is given, once the picture has changed from it.
// It returns a picture only when it is steady (the same 500 ms later), so
// neither a half-drawn window nor a passing state (a refresh in progress)
// is kept.
func screenshot(t *testing.T, display, path string, unlike image.Image) image.Image {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	wanted := func(img image.Image) bool {
		return distinctColours(img) >= 8 && (unlike == nil || differing(unlike, img) >= 500)
	}
	var prev image.Image
	for {
		cmd := exec.Command("import", "-display", display, "-window", "root", path)
		out, err := cmd.CombinedOutput()
		if err == nil {
			img := decodePNG(t, path)
			if wanted(img) && prev != nil && wanted(prev) && differing(prev, img) < 50 {
				return img
			}
			prev = img
		}
		if time.Now().After(deadline) {
			t.Fatalf("no steady window drawn on %s within 60 s (import: %v %s)", display, err, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// differing counts sampled pixels that differ between two images.
func differing(a, b image.Image) int {
	if a.Bounds() != b.Bounds() {
		return 1 << 30
	}
	n := 0
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			if fmt.Sprint(a.At(x, y)) != fmt.Sprint(b.At(x, y)) {
				n++
			}
		}
	}
	return n
}
