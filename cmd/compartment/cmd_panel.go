package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// PanelCmd starts the desktop panel, a separate program
// (compartment-panel, built beside this one) so this binary stays free of
// cgo and GL.
type PanelCmd struct {
	Show      bool   `help:"Open the panel's window (the default)."`
	SelfCheck bool   `help:"Build the panel without a display, read the vault's state and report."`
	Render    string `help:"Write the panel as a PNG image, without a display." placeholder:"FILE.png"`
	Login     string `help:"Start the panel when you log in: on, off or status (Linux: an autostart entry; the applications menu entry is always written)." enum:",on,off,status" default:""`
}

func (c *PanelCmd) Run(app *App) error {
	bin, err := panelBinary()
	if err != nil {
		return err
	}
	args := c.args(app)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = app.Stdin, app.Stdout, app.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			// The panel has said why on stderr already.
			return &exitError{code: ee.ExitCode(), err: fmt.Errorf("the panel stopped with status %d", ee.ExitCode())}
		}
		return fmt.Errorf("starting the panel (%s): %w", bin, err)
	}
	return nil
}

func (c *PanelCmd) args(app *App) []string {
	args := []string{"--vault", app.Vault}
	if self, err := os.Executable(); err == nil {
		args = append(args, "--cli", self)
	}
	switch {
	case c.Login != "":
		return []string{"--login", c.Login}
	case c.SelfCheck:
		args = append(args, "--self-check")
	case c.Render != "":
		args = append(args, "--render", c.Render)
	default:
		args = append(args, "--show")
	}
	return args
}

// panelBinary finds compartment-panel beside this program, else on PATH.
func panelBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "compartment-panel")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("compartment-panel"); err == nil {
		return p, nil
	}
	return "", errors.New("the panel (compartment-panel) is not installed beside this program or on PATH; build it with `make build` (it needs cgo and the GL/X11 headers, see scripts/setup.d/40-panel-deps.sh)")
}

// hasDisplay says whether a desktop session is there to show a window in.
func hasDisplay() bool {
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// startPanel opens the panel in the background after init, where there is
// a display and the panel is installed; it reports whether it did.
func startPanel(app *App) bool {
	if !hasDisplay() {
		return false
	}
	bin, err := panelBinary()
	if err != nil {
		return false
	}
	cmd := exec.Command(bin, (&PanelCmd{}).args(app)...)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return false
	}
	_ = cmd.Process.Release()
	return true
}
