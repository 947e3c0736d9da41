package main

import (
	"fmt"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
)

// ImportClaudeCmd copies what Claude Code wrote into the vault.
type ImportClaudeCmd struct {
	Dir       []string `help:"Also import the CLAUDE.md files under this project directory (repeatable)." placeholder:"DIR"`
	Namespace string   `help:"Namespace to store into (default: the caller's own; caller claude-code unless --caller is given)."`
	DryRun    bool     `help:"List the memories that would be stored, and store nothing."`
	JSON      bool     `help:"Print the result as JSON." name:"json"`
}

func (c *ImportClaudeCmd) Run(app *App) error {
	n, err := importClaude(app, integrate.HostEnv(), importOptions{dirs: c.Dir, namespace: c.Namespace, dryRun: c.DryRun, ask: true, list: !c.JSON})
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"files": n.Files, "claims": n.Claims, "stored": n.Stored, "duplicates": n.Duplicates,
			"refused": n.Refused, "skipped": n.skipped, "dry_run": c.DryRun})
	}
	for _, s := range n.skipped {
		fmt.Fprintf(app.Stdout, "skipped %s: %s\n", s.Path, s.Reason)
	}
	if c.DryRun {
		fmt.Fprintf(app.Stdout, "%d claims in %d files; nothing was stored (dry run)\n", n.Claims, n.Files)
		return nil
	}
	fmt.Fprintf(app.Stdout, "%d files, %d claims: %d stored, %d already in the vault", n.Files, n.Claims, n.Stored, n.Duplicates)
	if n.Refused > 0 {
		fmt.Fprintf(app.Stdout, ", %d refused by the vault", n.Refused)
	}
	fmt.Fprintln(app.Stdout)
	return nil
}

type importOptions struct {
	dirs      []string
	namespace string
	dryRun    bool
	ask       bool // may prompt for the passphrase
	list      bool // print each claim in a dry run
}

type importCounts struct {
	capture.Counts
	skipped []capture.Skipped
}

// importClaude stores the claims of every Claude Code memory file. It is
// copy-only (the files are only read) and repeatable: a claim already in
// the vault is reported as a duplicate, not stored again. A file the hook
// would not read (a link, not text, too large) is skipped and reported.
func importClaude(app *App, e integrate.Env, o importOptions) (importCounts, error) {
	var n importCounts
	dirs := make([]string, len(o.dirs))
	for i, d := range o.dirs {
		dirs[i] = expandPath(d)
	}
	files, skipped, err := capture.ReadFiles(e, capture.MemoryFiles(e, dirs))
	n.skipped = skipped
	if err != nil {
		return n, err
	}
	n.Files = len(files)
	for _, f := range files {
		n.Claims += len(f.Memories)
		if o.dryRun && o.list {
			for _, m := range f.Memories {
				fmt.Fprintf(app.Stdout, "%.2f  %-10s  %s  (%s)\n", m.Importance, m.Tier, m.Text, f.Path)
			}
		}
	}
	if o.dryRun || n.Claims == 0 {
		return n, nil
	}
	u, ok := app.quietCredential()
	if !ok {
		if !o.ask {
			return n, errVaultLocked
		}
		if u, err = app.credential(); err != nil {
			return n, err
		}
	}
	if app.Caller == defaultCaller {
		app.Caller = capture.DefaultCaller
		defer func() { app.Caller = defaultCaller }()
	}
	v, err := app.openVaultWith(u)
	if err != nil {
		return n, err
	}
	defer v.Close()
	n.Counts, err = capture.StoreFiles(v, files, o.namespace)
	return n, err
}
