package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/compartment/compartment/internal/dash"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// DashCmd serves the read-only dashboard on 127.0.0.1.
type DashCmd struct {
	Port   int  `help:"Port on 127.0.0.1 (default: a free one)." placeholder:"N"`
	NoOpen bool `help:"Print the link without opening a browser."`
}

func (c *DashCmd) Run(app *App) error {
	enc, err := app.encoder()
	if err != nil {
		return err
	}
	// The vault is held open read-only while it is unlocked, and dropped
	// the moment it is locked here or elsewhere (session.Keeper).
	keeper := session.NewKeeper(app.Vault, func(u vaultfmt.Unlock) (*vault.Vault, error) {
		u, err := session.WithKeyfile(app.Vault, app.Keyfile, u)
		if err != nil {
			return nil, err
		}
		return vault.Open(app.Vault, vault.Options{Unlock: u, Caller: app.Caller, Encoder: enc, ReadOnly: true})
	})
	defer keeper.Close()
	srv, err := dash.New(dash.Options{
		VaultPath: app.Vault, Caller: app.Caller,
		Open: func() (dash.Reader, error) {
			v, err := keeper.Vault()
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	})
	if err != nil {
		return err
	}
	ln, err := srv.Listen(c.Port)
	if err != nil {
		if errors.Is(err, syscall.EACCES) && app.AssertOffline {
			return errors.New("the dashboard needs a socket on 127.0.0.1, which --assert-offline (COMPARTMENT_ASSERT_OFFLINE) forbids: run dash without it; it listens on 127.0.0.1 only")
		}
		return err
	}
	srv.Warm()
	url := srv.LoginURL()
	fmt.Fprintf(app.Stdout, "dashboard: %s\n", url)
	fmt.Fprintln(app.Stdout, "read-only, on 127.0.0.1 only; the link works once. Ctrl-C stops it.")
	if !c.NoOpen {
		if err := dash.OpenBrowser(url); err != nil {
			fmt.Fprintf(app.Stderr, "compartment: no browser opened (%v): open the link above yourself\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Serve(ctx, ln)
}
