package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// RecentCmd lists the newest memories, newest first.
type RecentCmd struct {
	Limit     int    `help:"How many of the newest memories (listed newest first)." default:"20"`
	Namespace string `help:"Only this namespace."`
	All       bool   `help:"Also list the reference facts the vault was seeded with."`
	JSON      bool   `help:"Print the memories as JSON." name:"json"`
}

func (c *RecentCmd) Run(app *App) error {
	if c.Limit < 1 {
		return fmt.Errorf("--limit %d: use 1 or more", c.Limit)
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	recs, err := v.Recent(vault.RecentRequest{Limit: c.Limit, Namespace: c.Namespace, All: c.All, NewestFirst: true})
	if err != nil {
		return err
	}
	if c.JSON {
		if recs == nil {
			recs = []*vault.Record{}
		}
		return render.JSON(app.Stdout, recs)
	}
	if len(recs) == 0 {
		fmt.Fprintln(app.Stderr, "no memories yet")
		return nil
	}
	render.Recent(app.Stdout, recs)
	return nil
}

// NamespacesCmd lists namespaces with counts and the caller's access.
type NamespacesCmd struct {
	JSON bool `help:"Print the namespaces as JSON." name:"json"`
}

func (c *NamespacesCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	ns, err := v.Namespaces()
	if err != nil {
		return err
	}
	if c.JSON {
		if ns == nil {
			ns = []vault.NamespaceInfo{}
		}
		return render.JSON(app.Stdout, ns)
	}
	if len(ns) == 0 {
		fmt.Fprintln(app.Stderr, "no namespaces yet: the first store creates one")
		return nil
	}
	render.Namespaces(app.Stdout, ns)
	return nil
}

// LinkCmd records a relation.
type LinkCmd struct {
	Subject   string `arg:"" help:"The entity the relation starts from, e.g. Max."`
	Predicate string `arg:"" help:"The relation, e.g. works_at."`
	Object    string `arg:"" help:"The entity it points to, e.g. Northwind."`
	Src       string `help:"Id of the memory the relation comes from." placeholder:"ID"`
	From      string `help:"First day the relation holds (YYYY-MM-DD)." placeholder:"DATE"`
	To        string `help:"Last day the relation holds (YYYY-MM-DD)." placeholder:"DATE"`
	Namespace string `help:"Namespace (default: the source memory's, else the caller's own)."`
	JSON      bool   `help:"Print the relation as JSON." name:"json"`
}

func (c *LinkCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	rel, err := v.Link(vault.LinkRequest{Subject: c.Subject, Predicate: c.Predicate, Object: c.Object,
		Src: c.Src, From: c.From, To: c.To, Namespace: c.Namespace})
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rel)
	}
	fmt.Fprintln(app.Stdout, rel.ID)
	return nil
}

// RelationsCmd queries the memory graph.
type RelationsCmd struct {
	Entity    string `help:"Subject or object (case-insensitive)."`
	Subject   string `help:"Subject (case-insensitive)."`
	Predicate string `help:"Predicate (case-insensitive)."`
	Object    string `help:"Object (case-insensitive)."`
	AsOf      string `help:"Only relations valid on this day (YYYY-MM-DD)." placeholder:"DATE"`
	Namespace string `help:"Only this namespace."`
	Limit     int    `help:"At most this many relations." default:"500"`
	JSON      bool   `help:"Print the result as JSON." name:"json"`
}

func (c *RelationsCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.Relations(vault.RelationQuery{Entity: c.Entity, Subject: c.Subject, Predicate: c.Predicate,
		Object: c.Object, AsOf: c.AsOf, Namespace: c.Namespace, Limit: c.Limit})
	if err != nil {
		return err
	}
	if c.JSON {
		if res.Relations == nil {
			res.Relations = []*vault.Relation{}
		}
		return render.JSON(app.Stdout, res)
	}
	render.Relations(app.Stdout, res.Relations)
	if len(res.Relations) == 0 {
		fmt.Fprintln(app.Stderr, "no relations match")
	}
	if res.Truncated {
		fmt.Fprintf(app.Stderr, "truncated at %d: narrow the query or raise --limit\n", len(res.Relations))
	}
	return nil
}

// UnlinkCmd removes a relation.
type UnlinkCmd struct {
	ID   string `arg:"" help:"Relation id."`
	JSON bool   `help:"Print the result as JSON." name:"json"`
}

func (c *UnlinkCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	id := strings.ToLower(strings.TrimSpace(c.ID))
	if err := v.Unlink(id); err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.Unlinked{ID: id, Unlinked: true})
	}
	fmt.Fprintf(app.Stdout, "unlinked %s\n", id)
	return nil
}

// ExpireCmd runs the expiry sweep by hand, whatever expire_memories says.
type ExpireCmd struct {
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *ExpireCmd) Run(app *App) error {
	app.noSweep = true // this command is the sweep: report what it removes
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	ids, err := v.Expire()
	if err != nil {
		return err
	}
	if c.JSON {
		if ids == nil {
			ids = []string{}
		}
		return render.JSON(app.Stdout, api.Expired{Count: len(ids), Expired: ids})
	}
	fmt.Fprintf(app.Stdout, "removed %d expired memories\n", len(ids))
	return nil
}

// AuditCmd checks or re-anchors the audit chain.
type AuditCmd struct {
	Verify AuditVerifyCmd `cmd:"" help:"Check the hash chain for edited, removed or reordered entries."`
	Repair AuditRepairCmd `cmd:"" help:"Acknowledge reported breaks so later checks pass (they stay on record)."`
}

// AuditVerifyCmd checks the chain; it exits 1 when it is broken.
type AuditVerifyCmd struct {
	JSON bool `help:"Print the report as JSON." name:"json"`
}

func (c *AuditVerifyCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	rep, err := v.AuditVerify()
	if err != nil {
		return err
	}
	if c.JSON {
		if err := render.JSON(app.Stdout, rep); err != nil {
			return err
		}
	} else {
		render.Audit(app.Stdout, rep)
	}
	if !rep.OK {
		return &exitError{code: 1, err: fmt.Errorf("audit chain broken in %d places and %d items have no audit entry: if you know why (a restore from backup, a deliberate edit), `compartment audit repair --yes` acknowledges them", len(rep.Breaks), len(rep.Unaudited))}
	}
	return nil
}

// AuditRepairCmd re-anchors the chain after breaks the user has seen.
type AuditRepairCmd struct {
	Yes  bool `help:"Confirm: acknowledge every break that audit verify reports."`
	JSON bool `help:"Print the report as JSON." name:"json"`
}

func (c *AuditRepairCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	rep, err := v.AuditVerify()
	if err != nil {
		return err
	}
	if !rep.OK && !c.Yes {
		render.Audit(app.Stdout, rep)
		return &exitError{code: 1, err: errors.New("nothing was changed: these breaks may mean the vault was tampered with; once you know why, rerun with --yes to acknowledge them")}
	}
	repaired := !rep.OK
	if repaired {
		if rep, err = v.AuditRepair(); err != nil {
			return err
		}
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.AuditRepaired{Repaired: repaired, Report: rep})
	}
	render.Audit(app.Stdout, rep)
	if !repaired {
		fmt.Fprintln(app.Stderr, "nothing to repair")
	}
	return nil
}

// ConfigCmd reads and changes settings in <vault>.config.json. The file is
// plaintext and holds no secret, so no unlock is needed.
type ConfigCmd struct {
	Get ConfigGetCmd `cmd:"" help:"Print one setting, or all of them."`
	Set ConfigSetCmd `cmd:"" help:"Change one setting (refused with the allowed values if invalid)."`
}

// ConfigGetCmd prints settings.
type ConfigGetCmd struct {
	Key  string `arg:"" optional:"" help:"Setting name (default: every setting)."`
	JSON bool   `help:"Print as JSON." name:"json"`
}

func (c *ConfigGetCmd) Run(app *App) error {
	cfg, err := app.loadConfig()
	if err != nil {
		return err
	}
	if c.Key != "" {
		val, err := cfg.Settings.Get(c.Key)
		if err != nil {
			return err
		}
		if c.JSON {
			return render.JSON(app.Stdout, map[string]any{c.Key: val})
		}
		fmt.Fprintln(app.Stdout, val)
		return nil
	}
	all, err := cfg.Settings.Map()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, all)
	}
	render.Settings(app.Stdout, all)
	return nil
}

// ConfigSetCmd changes one setting.
type ConfigSetCmd struct {
	Key   string `arg:"" help:"Setting name."`
	Value string `arg:"" help:"New value (true/false, a number, or text)."`
	JSON  bool   `help:"Print the new settings as JSON." name:"json"`
}

func (c *ConfigSetCmd) Run(app *App) error {
	cfg, err := app.loadConfig()
	if err != nil {
		return err
	}
	if err := cfg.SetSetting(c.Key, c.Value); err != nil {
		return err
	}
	if err := cfg.Save(app.Vault); err != nil {
		return err
	}
	all, err := cfg.Settings.Map()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, all)
	}
	fmt.Fprintf(app.Stdout, "%s = %v (running servers pick it up when they next open the vault)\n", c.Key, all[c.Key])
	return nil
}

// loadConfig reads the settings of an existing vault.
func (app *App) loadConfig() (*vault.Config, error) {
	if _, err := os.Stat(app.Vault); err != nil {
		return nil, fmt.Errorf("no vault at %s: create one with `compartment init` (or pass --vault)", app.Vault)
	}
	return vault.LoadConfig(app.Vault)
}
