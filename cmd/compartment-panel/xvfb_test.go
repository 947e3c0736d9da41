//go:build cgo && linux

package main

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWindowUnderXvfb starts the real panel window on a virtual X display
// (Xvfb) against a real vault and takes screenshots of it locked and, after
// the vault is unlocked from the CLI, open. Set COMPARTMENT_PANEL_SHOTS to
// a directory to keep them.
func TestWindowUnderXvfb(t *testing.T) {
	for _, tool := range []string{"Xvfb", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed; run make setup (scripts/setup.d/40-panel-deps.sh)", tool)
		}
	}
	start := time.Now()
	cli := newVault(t)
	dir := t.TempDir()
	panel := panelBin
	t.Logf("%.1fs: vault and panel built", time.Since(start).Seconds())
	display := startXvfb(t)
	t.Logf("%.1fs: Xvfb on %s", time.Since(start).Seconds(), display)

	win := exec.Command(panel, "--vault", cli.Vault, "--cli", cli.Bin, "--refresh", "1s")
	win.Env = append(os.Environ(), "DISPLAY="+display, "LANG=C.UTF-8")
	var logb strings.Builder
	win.Stdout, win.Stderr = &logb, &logb
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { win.Process.Kill(); win.Wait() })

	shots := os.Getenv("COMPARTMENT_PANEL_SHOTS")
	if shots == "" {
		shots = dir
	}
	locked := screenshot(t, display, filepath.Join(shots, "panel-locked.png"), nil)
	t.Logf("%.1fs: locked window captured", time.Since(start).Seconds())
	if err := cli.Unlock(testPass); err != nil {
		t.Fatal(err)
	}
	open := screenshot(t, display, filepath.Join(shots, "panel-open.png"), locked)
	t.Logf("%.1fs: open window captured", time.Since(start).Seconds())
	if differing(locked, open) < 500 {
		t.Fatalf("the window looks the same locked and open (panel output: %s)", logb.String())
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
