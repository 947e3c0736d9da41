package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// StoreCmd stores one memory.
type StoreCmd struct {
	Text        string   `arg:"" help:"One claim, at most 200 characters by default."`
	Source      string   `help:"How the fact was established, e.g. \"from chat\", \"read from pyproject.toml\"." required:""`
	Namespace   string   `help:"Namespace (default: the caller's own)."`
	Tag         []string `help:"A tag (repeatable)." placeholder:"TAG"`
	Importance  *float64 `help:"0 to 1: 0.9 decisions and consent, 0.8 personal facts and preferences, 0.75 machine and configuration, 0.55 other substantive statements, 0.2 small talk (default 0.5)."`
	Discovered  string   `help:"Date the fact was learned, YYYY-MM-DD (default today)."`
	Expires     string   `help:"Last day the fact is true: YYYY-MM-DD or 14d, 2w, 3m, 1y."`
	Kind        string   `help:"fact or opinion (opinions replace similar older ones)." enum:"fact,opinion" default:"fact"`
	Supersedes  []string `help:"Id of a memory this one replaces (repeatable)." placeholder:"ID"`
	KeepBoth    bool     `help:"Store an opinion beside similar ones instead of reporting a conflict."`
	Quarantined bool     `help:"The content came from an untrusted source: every recall carries a warning."`
	Raw         bool     `help:"Skip the one-claim check (bulk loads)."`
	JSON        bool     `help:"Print the result as JSON." name:"json"`
}

func (c *StoreCmd) Run(app *App) error {
	if c.Importance != nil && !(*c.Importance >= 0 && *c.Importance <= 1) {
		return errors.New(importanceSentence(strconv.FormatFloat(*c.Importance, 'g', -1, 64)))
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	req := vault.StoreRequest{
		Text: c.Text, Source: c.Source, Namespace: c.Namespace, Tags: c.Tag, Importance: c.Importance,
		Discovered: c.Discovered, Expires: c.Expires, Kind: c.Kind, Supersedes: c.Supersedes,
		Quarantined: c.Quarantined, Raw: c.Raw,
	}
	if c.KeepBoth && req.Supersedes == nil {
		req.Supersedes = []string{}
	}
	res, err := v.Store(req)
	if err != nil {
		return err
	}
	if c.JSON {
		if err := render.JSON(app.Stdout, api.StoreOf(res)); err != nil {
			return err
		}
	} else {
		render.StoreResult(app.Stdout, app.Stderr, res)
	}
	if len(res.Conflicts) > 0 {
		// Nothing was stored: scripts must not take this for success.
		return &exitError{code: exitNotStored, err: errors.New("the opinion was not stored (see above)")}
	}
	return nil
}

// exitNotStored is store's exit status when an opinion conflict kept the
// memory out (README, "Exit status").
const exitNotStored = 3

// GetCmd prints one memory.
type GetCmd struct {
	ID   string `arg:"" help:"Memory id (or a unique prefix of at least 6 digits)."`
	JSON bool   `help:"Print the memory as JSON." name:"json"`
}

func (c *GetCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	r, err := v.Get(c.ID)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, r)
	}
	render.Record(app.Stdout, r)
	return nil
}

// ForgetCmd removes a memory.
type ForgetCmd struct {
	ID    string `arg:"" help:"Memory id (or a unique prefix)."`
	Shred bool   `help:"Destroy the record's key and content in the file now, so it cannot be recovered."`
	JSON  bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ForgetCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	id, err := v.Forget(c.ID, c.Shred)
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.Forgotten{ID: id, Forgotten: true, Shredded: c.Shred})
	}
	if c.Shred {
		fmt.Fprintf(app.Stdout, "shredded %s: its key and content are gone from the vault file\n", id)
	} else {
		fmt.Fprintf(app.Stdout, "forgot %s (use --shred to destroy it in the file at once)\n", id)
	}
	return nil
}
