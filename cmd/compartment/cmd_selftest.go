package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/compartment/compartment/internal/offline"
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
		if err := printJSON(app.Stdout, rep); err != nil {
			return err
		}
	} else {
		printSelftest(app, rep)
	}
	if !rep.OK {
		return &exitError{code: 1, err: errors.New("the self-test found a problem (see above)")}
	}
	return nil
}

func printSelftest(app *App, rep selftest.Report) {
	w := app.Stdout
	mark := map[bool]string{true: "ok  ", false: "FAIL"}
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%s %-20s %8.1f ms  %s\n", mark[c.OK], c.Name, c.MS, c.Detail)
	}
	if len(rep.Questions) > 0 {
		fmt.Fprintln(w)
		for _, q := range rep.Questions {
			where := "miss"
			if q.Rank > 0 {
				where = fmt.Sprintf("#%d", q.Rank)
			}
			fmt.Fprintf(w, "  %-4s %6.1f ms  %s\n", where, q.MS, q.Ask)
		}
		fmt.Fprintf(w, "\nhit@3 %.2f (%d of %d); ", rep.HitAt3, rep.Hits, len(rep.Questions))
	}
	fmt.Fprintf(w, "search p50 %.1f ms, max %.1f ms; a nonsense query returned %d results\n", rep.SearchP50MS, rep.SearchMaxMS, rep.NonsenseResults)
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
