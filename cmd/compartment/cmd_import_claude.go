package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
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
		return printJSON(app.Stdout, map[string]any{"files": n.files, "claims": n.claims, "stored": n.stored, "duplicates": n.duplicates, "refused": n.refused, "dry_run": c.DryRun})
	}
	if c.DryRun {
		fmt.Fprintf(app.Stdout, "%d claims in %d files; nothing was stored (dry run)\n", n.claims, n.files)
		return nil
	}
	fmt.Fprintf(app.Stdout, "%d files, %d claims: %d stored, %d already in the vault", n.files, n.claims, n.stored, n.duplicates)
	if n.refused > 0 {
		fmt.Fprintf(app.Stdout, ", %d refused by the vault", n.refused)
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

type storeCounts struct {
	files, claims, stored, duplicates, refused int
}

// claudeMemoryFiles lists the memory files Claude Code keeps: the user's
// CLAUDE.md, every project's memory directory, and the CLAUDE.md files
// under the given project directories.
func claudeMemoryFiles(e integrate.Env, dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(integrate.ClaudeMD(e))
	mem, _ := filepath.Glob(filepath.Join(integrate.ClaudeProjects(e), "*", "memory", "*.md"))
	sort.Strings(mem)
	for _, p := range mem {
		add(p)
	}
	for _, d := range dirs {
		root := expandPath(d)
		filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if de.IsDir() {
				if name := de.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
					return filepath.SkipDir
				}
				return nil
			}
			if de.Name() == "CLAUDE.md" || de.Name() == "CLAUDE.local.md" {
				add(p)
			}
			return nil
		})
	}
	return out
}

// importClaude stores the claims of every Claude Code memory file. It is
// copy-only (the files are only read) and repeatable: a claim already in
// the vault is reported as a duplicate, not stored again.
func importClaude(app *App, e integrate.Env, o importOptions) (storeCounts, error) {
	var n storeCounts
	type fileClaims struct {
		path, day string
		mems      []capture.Memory
	}
	var all []fileClaims
	for _, p := range claudeMemoryFiles(e, o.dirs) {
		text, day, err := readMemoryFile(p)
		if err != nil {
			return n, err
		}
		mems := capture.File(text, capture.MaxChars)
		n.files++
		n.claims += len(mems)
		all = append(all, fileClaims{p, day, mems})
		if o.dryRun && o.list {
			for _, m := range mems {
				fmt.Fprintf(app.Stdout, "%.2f  %-10s  %s  (%s)\n", m.Importance, m.Tier, m.Text, p)
			}
		}
	}
	if o.dryRun || n.claims == 0 {
		return n, nil
	}
	u, ok := app.quietCredential()
	if !ok {
		if !o.ask {
			return n, errVaultLocked
		}
		var err error
		if u, err = app.credential(); err != nil {
			return n, err
		}
	}
	if app.Caller == defaultCaller {
		app.Caller = "claude-code"
		defer func() { app.Caller = defaultCaller }()
	}
	v, err := app.openVaultWith(u)
	if err != nil {
		return n, err
	}
	defer v.Close()
	for _, f := range all {
		c, err := storeMemories(v, f.mems, "Claude Code memory file "+f.path, f.day, o.namespace)
		n.stored += c.stored
		n.duplicates += c.duplicates
		n.refused += c.refused
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// storeMemories stores each claim on its own, so one the vault refuses
// (too long for a lowered max_memory_chars, say) does not stop the rest.
func storeMemories(v *vault.Vault, mems []capture.Memory, source, discovered, namespace string) (storeCounts, error) {
	var n storeCounts
	for _, m := range mems {
		imp := m.Importance
		res, err := v.Store(vault.StoreRequest{Text: m.Text, Source: source, Importance: &imp, Discovered: discovered, Namespace: namespace})
		switch {
		case err != nil && isRefusal(err):
			n.refused++
		case err != nil:
			return n, err
		case res.Stored:
			n.stored++
		default:
			n.duplicates++
		}
	}
	return n, nil
}

// isRefusal tells a claim the vault will not take from a failure of the
// vault itself.
func isRefusal(err error) bool { return errors.Is(err, vault.ErrInvalid) }
