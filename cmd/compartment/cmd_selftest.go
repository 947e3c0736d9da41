package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/compartment/compartment/internal/offline"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/selftest"
	"github.com/compartment/compartment/internal/vault"
)

// SelftestCmd checks the install end to end against the vault.
type SelftestCmd struct {
	JSON bool `help:"Print the report as JSON." name:"json"`
}

func (c *SelftestCmd) Run(app *App) error {
	if err := vault.CheckReadsSomething(app.Vault, app.Caller, "selftest"); err != nil {
		return err
	}
	start := time.Now()
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	openMS := float64(time.Since(start).Microseconds()) / 1000
	exe, _ := os.Executable()
	rep, err := selftest.Run(v, selftest.Options{OpenMS: openMS, Executable: exe})
	if err != nil {
		return err
	}
	if c.JSON {
		if err := render.JSON(app.Stdout, rep); err != nil {
			return err
		}
	} else {
		render.Selftest(app.Stdout, rep)
	}
	if !rep.OK {
		return &exitError{code: 1, err: errors.New("the self-test found a problem (see above)")}
	}
	return nil
}

// ProbeCmd is the child the self-test runs: it installs the offline
// guard and checks that network sockets are refused.
type ProbeCmd struct{}

func (c *ProbeCmd) Run(app *App) error {
	if err := offline.RunProbe(); err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, offline.ProbeHolds)
	fmt.Fprintln(app.Stdout, offline.Layers())
	return nil
}
