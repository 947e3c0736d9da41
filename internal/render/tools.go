package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/internal/selftest"
)

// Selftest is the self-test's checks, its reference questions and the
// search timings.
func Selftest(w io.Writer, rep selftest.Report) {
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

// Update says what a self-update replaced, and what it means for the
// vault format and for running processes.
func Update(w io.Writer, r release.UpdateReport) {
	if !r.Updated {
		fmt.Fprintln(w, r.Note)
		return
	}
	fmt.Fprintf(w, "updated %s: %s -> %s (%s), signed by %s\n", r.Binary, r.From, r.To, r.Target, r.Signer)
	if r.VaultFormatFrom == r.VaultFormatTo {
		fmt.Fprintf(w, "vault format %d, unchanged\n", r.VaultFormatTo)
	} else {
		fmt.Fprintf(w, "vault format %d -> %d: vaults are upgraded when the new version next writes them\n", r.VaultFormatFrom, r.VaultFormatTo)
	}
	if r.DaemonRestarted {
		fmt.Fprintln(w, "embedding daemon stopped; the next search starts the new one")
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	fmt.Fprintln(w, "processes already running (agents' MCP servers) keep the old version until they restart")
}

// WhereToGetRelease is what update says without --from: how to bring a
// release for goos/goarch here, and that it replaces binary.
func WhereToGetRelease(w io.Writer, goos, goarch, binary string) {
	fmt.Fprintf(w, `compartment never downloads anything by itself, updates included.
To update: get a release for %s/%s (compartment_<version>_%s_%s.tar.gz, with SHA256SUMS
and SHA256SUMS.sig) from the project's releases page, or an airgap bundle made
with 'compartment setup airgap-bundle' on a machine that has it, bring it here,
and run:
    compartment update --from FILE
It checks the signature, refuses a binary that could not read your vault, and
replaces %s in place.
`, goos, goarch, goos, goarch, binary)
}

// Bundle says what airgap-bundle wrote and how to install it.
func Bundle(w io.Writer, out string, rep release.BundleReport) {
	fmt.Fprintf(w, "wrote %s: compartment %s for %s, %d files, %s\n", out, rep.Version, rep.Target, len(rep.Files)+1, Bytes(rep.Size()))
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintf(w, "on the target: tar -xzf %s && %s\n", filepath.Base(out), rep.InstallCommand())
}

// BundleChecked says what verify-bundle found in an unpacked bundle.
func BundleChecked(w io.Writer, chk *release.BundleCheck) {
	signer := "UNSIGNED (allowed by --allow-unsigned)"
	if chk.Signer != nil {
		signer = "signed by release key " + release.FormatKey(chk.Signer)
	}
	program := "an unsigned program"
	if chk.Version != "" {
		program = "compartment " + chk.Version + " for " + chk.Target
	}
	fmt.Fprintf(w, "bundle checked: %s, %d files all listed and matching SHA256SUMS, %s\n", program, len(chk.Files), signer)
}

// Embedding is one text's embedding: model, tokens, windows, who served
// it, and the vector.
func Embedding(w io.Writer, out embed.Inspection, query bool) {
	fmt.Fprintf(w, "model    %s\n", out.Model)
	fmt.Fprintf(w, "sha256   %s\n", out.SHA256)
	fmt.Fprintf(w, "dim      %d\n", out.Dim)
	kind := "document"
	if query {
		kind = "query (prefix included)"
	}
	fmt.Fprintf(w, "tokens   %d, as a %s\n", out.Tokens, kind)
	var spans []string
	for _, win := range out.Windows {
		spans = append(spans, fmt.Sprintf("[%d,%d)", win[0], win[1]))
	}
	fmt.Fprintf(w, "windows  %d: %s\n", len(out.Windows), strings.Join(spans, " "))
	if out.Daemon != 0 {
		fmt.Fprintf(w, "served   by the embedding daemon, pid %d\n", out.Daemon)
	} else {
		fmt.Fprintf(w, "served   in this process\n")
	}
	fmt.Fprintf(w, "vector")
	for i, x := range out.Vector {
		if i%8 == 0 {
			fmt.Fprintf(w, "\n ")
		}
		fmt.Fprintf(w, " %+.6f", x)
	}
	fmt.Fprintln(w)
}

// Daemon is the embedding daemon's status.
func Daemon(w io.Writer, st embed.DaemonStatus) {
	if !st.Running {
		fmt.Fprintf(w, "not running (socket %s)\n", st.Socket)
		return
	}
	fmt.Fprintf(w, "running  pid %d, up %.0f s\nmodel    %s (sha256 %s)\nrss      %.1f MB\nclients  %d\nsocket   %s\n",
		st.PID, st.UptimeS, st.Model, st.SHA256, st.RSSMB, st.Clients, st.Socket)
}
