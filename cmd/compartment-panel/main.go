//go:build cgo || windows

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
	"image"
	"image/png"
	"os"
	"runtime"
	"time"

	"gioui.org/app"
	"gioui.org/gpu/headless"
	"gioui.org/io/input"
	"gioui.org/io/system"
	"gioui.org/layout"
	"gioui.org/op"
	"gioui.org/unit"
)

// The window's size in device-independent pixels, and --render's in pixels.
const width, height = 480, 760

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
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display here (neither DISPLAY nor WAYLAND_DISPLAY is set); use the CLI (compartment unlock, lock, status) or --render FILE.png")
	}
	errc := make(chan error, 1)
	go func() {
		errc <- window(cli, *every)
		// Gio's app.Main never returns; the window's end is the program's.
		err := <-errc
		if err != nil {
			fmt.Fprintf(os.Stderr, "compartment-panel: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}()
	app.Main()
	return nil
}

// window runs the panel's window until it is closed. Gio's loop waits for
// the next event: with nothing to draw and no input the panel uses no CPU.
func window(cli *CLI, every time.Duration) error {
	w := new(app.Window)
	w.Option(app.Title("Compartment"), app.Size(unit.Dp(width), unit.Dp(height)))
	p := NewPanel(cli, w.Invalidate)
	p.quit = func() { w.Perform(system.ActionClose) }
	p.Refresh()
	p.refreshEvery(every)
	var ops op.Ops
	focused := false
	for {
		switch e := w.Event().(type) {
		case app.DestroyEvent:
			return e.Err
		case app.ConfigEvent:
			// Coming to the front re-reads the state, so the slow timer
			// only matters for a window left in view across an auto-lock.
			if e.Config.Focused && !focused {
				p.Refresh()
			}
			focused = e.Config.Focused
		case app.FrameEvent:
			gtx := app.NewContext(&ops, e)
			p.Layout(gtx)
			e.Frame(gtx.Ops)
		}
	}
}

// offscreen fills a panel once and draws it without a display. On Linux,
// Gio's headless GPU context is EGL's default display; Mesa's surfaceless
// platform gives one with no X or Wayland server (software rendering with
// llvmpipe where there is no GPU).
func offscreen(cli *CLI) (*Panel, *image.RGBA, error) {
	p := NewPanel(cli, func() {})
	p.Refresh()
	p.Wait()
	size := image.Pt(width, height)
	// EGL reads the platform when the display is opened; the variable is
	// dropped again after, so nothing this process starts inherits it.
	if _, set := os.LookupEnv("EGL_PLATFORM"); !set && runtime.GOOS == "linux" {
		os.Setenv("EGL_PLATFORM", "surfaceless")
		defer os.Unsetenv("EGL_PLATFORM")
	}
	hw, err := headless.NewWindow(size.X, size.Y)
	if err != nil {
		return p, nil, fmt.Errorf("drawing without a display needs an OpenGL ES context (on Linux Mesa's EGL, libegl-mesa0 and libgl1-mesa-dri): %w", err)
	}
	defer hw.Release()
	// A router of its own, so the widgets draw as enabled ones do.
	var r input.Router
	var ops op.Ops
	gtx := layout.Context{Ops: &ops, Now: time.Now(), Metric: unit.Metric{PxPerDp: 1, PxPerSp: 1}, Constraints: layout.Exact(size), Source: r.Source()}
	p.Layout(gtx)
	if err := hw.Frame(&ops); err != nil {
		return p, nil, fmt.Errorf("drawing the panel: %w", err)
	}
	img := image.NewRGBA(image.Rectangle{Max: size})
	if err := hw.Screenshot(img); err != nil {
		return p, nil, fmt.Errorf("reading the drawn panel: %w", err)
	}
	return p, img, nil
}

func renderCmd(cli *CLI, path string) error {
	_, img, err := offscreen(cli)
	if err != nil {
		return err
	}
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
	p, _, err := offscreen(cli)
	if err != nil {
		return fmt.Errorf("self-check: %w", err)
	}
	if v := p.View(); v.Err != "" {
		return fmt.Errorf("self-check: the panel shows an error: %s", v.Err)
	}
	state := "open"
	if st.Locked {
		state = "locked"
	}
	fmt.Printf("panel ok: %s is %s; the CLI is %s\n", st.Path, state, cli.Bin)
	return nil
}
