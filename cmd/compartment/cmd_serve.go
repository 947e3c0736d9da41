package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/mcp"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// ServeCmd runs the MCP stdio server agents talk to.
//
// The caller identity is the global --caller flag and nothing else: the
// clientInfo.name a client sends is logged, never trusted (see
// internal/mcp's package doc).
type ServeCmd struct {
	Debug bool `help:"Log every tool call (to stderr)."`
}

func (c *ServeCmd) Run(app *App) error {
	level := slog.LevelInfo
	if c.Debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(app.Stderr, &slog.HandlerOptions{Level: level}))
	enc, err := app.encoder()
	if err != nil {
		return err
	}
	now, err := vault.ClockFrom(os.Getenv(vault.EnvNow)) // test-only
	if err != nil {
		return err
	}
	open := func(u vaultfmt.Unlock) (*vault.Vault, error) {
		// A passphrase from memory_unlock or the environment needs the
		// second factor given on the command line, if any.
		u, err := session.WithKeyfile(app.Vault, app.Keyfile, u)
		if err != nil {
			return nil, err
		}
		v, err := vault.Open(app.Vault, app.vaultOptions(vault.Options{Unlock: u, Caller: app.Caller, Encoder: enc, Now: now}))
		if err == nil {
			devsync.Serve(v, time.Second, log) // keep it merged with its sync folder
		}
		return v, err
	}
	if _, err := os.Stat(app.Vault); err != nil {
		log.Warn("no vault here yet: tools will fail until `compartment init` creates one", "vault", app.Vault)
	}
	// The protocol owns stdout. Anything else that prints to os.Stdout
	// (a library, a stray debug line) would corrupt the stream, so it is
	// pointed at stderr for the life of the server.
	out := render.Raw(app.Stdout) // JSON-RPC: exact bytes
	if out == os.Stdout {
		os.Stdout = os.Stderr
		defer func() { os.Stdout = out.(*os.File) }()
	}
	srv := mcp.New(mcp.Options{
		VaultPath: app.Vault, Open: open, Keyfile: app.readKeyfile,
		Caller: app.Caller, Version: version, Log: log,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Info("serving MCP on stdio", "vault", app.Vault, "caller", app.Caller, "version", version)
	return srv.Serve(ctx, app.Stdin, out)
}
