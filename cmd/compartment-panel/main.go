//go:build cgo

// Command compartment-panel is compartment's small desktop panel: an
// ordinary window (listed in the applications menu) that unlocks and
// locks the vault, changes the three settings worth changing, connects
// agents and shows the newest memories. It keeps no vault in memory: every
// piece of state comes from the compartment CLI, run for the moment it is
// needed. It is its own binary so the CLI stays free of cgo and GL.
package main

import (
	"errors"
	"flag"
	"fmt"
	"image/png"
	"os"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/test"
)

const appID = "org.compartment.panel"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "compartment-panel: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("compartment-panel", flag.ContinueOnError)
	vault := fs.String("vault", os.Getenv("COMPARTMENT_VAULT"), "vault file (default: the CLI's)")
	cliPath := fs.String("cli", "", "the compartment command (default: beside this program, else on PATH)")
	show := fs.Bool("show", false, "open the window (the default when no other action is asked)")
	selfCheck := fs.Bool("self-check", false, "build the panel without a display, read the state through the CLI, and report")
	render := fs.String("render", "", "write the panel as a PNG image, without a display")
	login := fs.String("login", "", "on, off or status: start the panel when you log in")
	every := fs.Duration("refresh", 5*time.Minute, "how often the open window re-reads the state (it also does when it comes to the front)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *login != "" {
		return loginCmd(*login, os.Stdout)
	}
	bin := *cliPath
	if bin == "" {
		var err error
		if bin, err = findCLI(); err != nil {
			return err
		}
	}
	cli := &CLI{Bin: bin, Vault: *vault}
	switch {
	case *selfCheck:
		return selfCheckCmd(cli)
	case *render != "":
		return renderCmd(cli, *render)
	}
	_ = show
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display here (neither DISPLAY nor WAYLAND_DISPLAY is set); use the CLI (compartment unlock, lock, status) or --render FILE.png")
	}
	a := fyneapp.NewWithID(appID)
	w := a.NewWindow("Compartment")
	p := NewPanel(a, w, cli)
	w.Resize(fyne.NewSize(480, 720))
	p.Refresh()
	// Coming to the front re-reads the state, so the slow timer only
	// matters for a window left in view across an auto-lock.
	a.Lifecycle().SetOnEnteredForeground(p.Refresh)
	p.startTimer(*every)
	w.ShowAndRun()
	return nil
}

// headless builds the panel in Fyne's test driver (software rendering, no
// display) and fills it once.
func headless(cli *CLI) (*Panel, fyne.Window) {
	a := test.NewApp()
	w := a.NewWindow("Compartment")
	p := NewPanel(a, w, cli)
	w.Resize(fyne.NewSize(480, 760))
	p.Refresh()
	p.Wait()
	return p, w
}

func renderCmd(cli *CLI, path string) error {
	_, w := headless(cli)
	img := w.Canvas().Capture()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the image: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("writing the image: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the image: %w", err)
	}
	fmt.Printf("wrote %s (%dx%d)\n", path, img.Bounds().Dx(), img.Bounds().Dy())
	return nil
}

func selfCheckCmd(cli *CLI) error {
	st, err := cli.Load()
	if err != nil {
		return fmt.Errorf("self-check: reading the vault's state through %s: %w", cli.Bin, err)
	}
	p, _ := headless(cli)
	if p.errLabel.Visible() {
		return fmt.Errorf("self-check: the panel shows an error: %s", p.errLabel.Text)
	}
	state := "open"
	if st.Locked {
		state = "locked"
	}
	fmt.Printf("panel ok: %s is %s; the CLI is %s\n", st.Path, state, cli.Bin)
	return nil
}
