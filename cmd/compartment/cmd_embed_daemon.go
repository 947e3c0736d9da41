package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
)

// This binary can start the shared embedding daemon on demand: clients
// (the MCP server, the CLI) re-run it as `embed-daemon run`.
func init() {
	if exe, err := os.Executable(); err == nil {
		embed.DaemonArgv = []string{exe, "embed-daemon", "run"}
	}
}

// EmbedDaemonCmd groups the daemon's subcommands.
type EmbedDaemonCmd struct {
	Run    EmbedDaemonRunCmd    `cmd:"" help:"Serve the model on the socket, in the foreground (clients start this themselves)."`
	Status EmbedDaemonStatusCmd `cmd:"" help:"Is the daemon running, with which model, how big, how many clients."`
	Stop   EmbedDaemonStopCmd   `cmd:"" help:"Ask the daemon to exit."`
}

// EmbedDaemonRunCmd runs the daemon until it is stopped, interrupted, or
// idle for COMPARTMENT_EMBED_IDLE seconds.
type EmbedDaemonRunCmd struct {
	Socket     string `help:"Socket path (default: $COMPARTMENT_EMBED_SOCKET, else a private runtime directory)." placeholder:"PATH"`
	Model      string `help:"Model name or path (default: the default model)." placeholder:"NAME|PATH"`
	RuntimeLib string `help:"ONNX Runtime library (default: $COMPARTMENT_ORT_LIB, else the installed one)." placeholder:"PATH"`
}

func (c *EmbedDaemonRunCmd) Run(app *App) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := embed.RunDaemon(ctx, embed.DaemonOptions{
		Socket: c.Socket,
		Model:  embed.LoadOptions{Name: c.Model, RuntimeLib: c.RuntimeLib},
		Log:    app.Stderr,
	})
	if errors.Is(err, embed.ErrDaemonRunning) {
		return &exitError{code: embed.DaemonExitRunning, err: err}
	}
	return err
}

// EmbedDaemonStatusCmd reports on the daemon.
type EmbedDaemonStatusCmd struct {
	JSON bool `help:"Print JSON: running, pid, model, rss_mb, clients, uptime_s." name:"json"`
}

func (c *EmbedDaemonStatusCmd) Run(app *App) error {
	st, err := embed.DaemonStatusAt("")
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, st)
	}
	render.Daemon(app.Stdout, st)
	return nil
}

// EmbedDaemonStopCmd stops the daemon and waits until it is gone.
type EmbedDaemonStopCmd struct {
	JSON bool `help:"Print JSON: stopped." name:"json"`
}

func (c *EmbedDaemonStopCmd) Run(app *App) error {
	was, err := embed.StopDaemon("")
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.DaemonStopped{Stopped: was})
	}
	if was {
		fmt.Fprintln(app.Stdout, "stopped")
	} else {
		fmt.Fprintln(app.Stdout, "not running")
	}
	return nil
}
