package render

import (
	"fmt"
	"io"

	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
)

// Describe says in one line what happened (dry: would happen) to one
// file.
func Describe(what string, ch integrate.Change, dry bool) string {
	verb := map[string]string{
		"created": "created", "updated": "updated", "unchanged": "already in place, nothing changed",
		"restored": "restored from the backup", "removed": "removed",
	}[ch.Action]
	if dry && ch.Action != "unchanged" {
		verb = "would be " + verb
	}
	s := fmt.Sprintf("%s %s (%s)", what, verb, ch.Path)
	if ch.Backup != "" {
		s += "; backup " + ch.Backup
	}
	return s
}

// Connection says what wiring one client did: its MCP entry (or the
// block to paste by hand), then each extra step. err is Connect's.
func Connection(w io.Writer, name string, rep integrate.Connection, err error, dry bool) {
	switch {
	case rep.WireFailed && rep.Block != "":
		fmt.Fprintf(w, "%s: %v\nPaste this into it by hand:\n\n%s\n", name, err, rep.Block)
		return
	case rep.WireFailed:
		return
	case rep.Action == "paste":
		fmt.Fprintf(w, "%s keeps its servers where compartment cannot edit them. Add this block:\n\n%s\n", name, rep.Block)
	default:
		fmt.Fprintln(w, Describe(name+": MCP server", rep.MCP, dry))
		if rep.MCP.Message != "" {
			fmt.Fprintf(w, "  %s\n", rep.MCP.Message)
		}
	}
	for _, step := range rep.Steps {
		fmt.Fprintln(w, Describe(step.What, step.Change, dry))
		if step.Note != "" {
			fmt.Fprintf(w, "  %s\n", step.Note)
		}
	}
}

// Clients is the table of every client: installed, wired, its file.
func Clients(w io.Writer, rows []integrate.ClientRow) {
	fmt.Fprintf(w, "%-15s %-22s %-9s %-6s %s\n", "CLIENT", "NAME", "INSTALLED", "WIRED", "FILE")
	yes := map[bool]string{true: "yes", false: "-"}
	for _, r := range rows {
		if r.File == "" {
			r.File = "(no file: integrate prints the block to paste)"
		}
		fmt.Fprintf(w, "%-15s %-22s %-9s %-6s %s\n", r.Client, r.Name, yes[r.Installed], yes[r.Wired], r.File)
	}
}

// Undone is one item uninstall took back (or would, when dry).
func Undone(w io.Writer, u integrate.Undone, dry bool) {
	line := Describe(u.Client+" "+u.Kind, u.Change, dry)
	if u.Change.Message != "" {
		line += ": " + u.Change.Message
	}
	fmt.Fprintln(w, line)
}

// HookStatus says whether the capture hook is installed, what it runs,
// whether the vault can take what it captures, and what waits.
func HookStatus(w io.Writer, st capture.HookState) {
	if st.Pending > 0 {
		defer fmt.Fprintf(w, "waiting: %s captured while the vault was locked; the next unlock imports them\n", capture.WaitingSummary(st.Waiting))
	}
	if !st.Installed {
		fmt.Fprintf(w, "capture hook: not installed in %s (`compartment hook install`)\n", st.Settings)
		return
	}
	fmt.Fprintf(w, "capture hook: installed in %s\n", st.Settings)
	for _, cmd := range st.Commands {
		fmt.Fprintf(w, "  runs: %s\n", cmd)
	}
	if st.VaultUnlocked {
		fmt.Fprintln(w, "vault: unlocked, so memory files Claude Code writes are stored")
	} else {
		fmt.Fprintln(w, "vault: locked, so memory files Claude Code writes wait for `compartment unlock` (their paths are listed, not their content)")
	}
}

// ClaudeImport is what import-claude read and stored (with a dry run,
// each claim it would store).
func ClaudeImport(w io.Writer, n capture.ImportReport) {
	for _, s := range n.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.Path, s.Reason)
	}
	if n.DryRun {
		for _, f := range n.Read {
			for _, m := range f.Memories {
				fmt.Fprintf(w, "%.2f  %-10s  %s  (%s)\n", m.Importance, m.Tier, m.Text, f.Path)
			}
		}
		fmt.Fprintf(w, "%d claims in %d files; nothing was stored (dry run)\n", n.Claims, n.Files)
		return
	}
	fmt.Fprintf(w, "%d files, %d claims: %d stored, %d already in the vault", n.Files, n.Claims, n.Stored, n.Duplicates)
	if n.Refused > 0 {
		fmt.Fprintf(w, ", %d refused by the vault", n.Refused)
	}
	fmt.Fprintln(w)
}
