package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/compartment/compartment/internal/vault"
)

// Recent lists memories one a line: id, creation time, namespace, text.
func Recent(w io.Writer, recs []*vault.Record) {
	for _, r := range recs {
		mark := ""
		if r.Quarantined {
			mark = "  (QUARANTINED: from an untrusted source)"
		}
		fmt.Fprintf(w, "%s  %s  %-12s %s%s\n", r.ID[:12], r.Created.Format("2006-01-02 15:04"), Inert(r.Namespace), Inert(r.Stamped()), mark)
	}
}

// Namespaces is the namespace table with the caller's access.
func Namespaces(w io.Writer, ns []vault.NamespaceInfo) {
	fmt.Fprintf(w, "%-24s %8s %11s  %s\n", "NAMESPACE", "LIVE", "SUPERSEDED", "ACCESS")
	for _, n := range ns {
		fmt.Fprintf(w, "%-24s %8d %11d  %s\n", Inert(n.Name), n.Records, n.Superseded, n.Access)
	}
}

// Relations lists relations one a line, with their validity window.
func Relations(w io.Writer, rels []*vault.Relation) {
	for _, r := range rels {
		fmt.Fprintf(w, "%s  %s %s %s%s\n", r.ID, Inert(r.Subject), Inert(r.Predicate), Inert(r.Object), validity(r))
	}
}

// validity is a relation's window, if it has one.
func validity(r *vault.Relation) string {
	if r.From == "" && r.To == "" {
		return ""
	}
	from, to := r.From, r.To
	if from == "" {
		from = "…"
	}
	if to == "" {
		to = "…"
	}
	return fmt.Sprintf("  [%s to %s]", from, to)
}

// Audit is the audit chain's report: entries, breaks, acknowledged
// breaks, unaudited items.
func Audit(w io.Writer, rep vault.AuditReport) {
	head := rep.Head
	if len(head) > 16 {
		head = head[:16]
	}
	fmt.Fprintf(w, "entries        %d, head %s\n", rep.Entries, head)
	for _, b := range rep.Breaks {
		fmt.Fprintf(w, "break          entry %d: %s\n", b.Seq, b.Reason)
	}
	for _, b := range rep.Acknowledged {
		fmt.Fprintf(w, "acknowledged   entry %d: %s\n", b.Seq, b.Reason)
	}
	for _, id := range rep.Unaudited {
		fmt.Fprintf(w, "unaudited      %s: no audit entry names it (written around the chain)\n", id)
	}
	if rep.OK {
		fmt.Fprintln(w, "chain          intact")
	}
}

// Settings lists settings by name.
func Settings(w io.Writer, all map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(w, "%-28s %v\n", k, all[k])
	}
}

// StoreResult is a store's outcome: the id on out, what else happened on
// errw (superseded, linked, duplicate, conflicts).
func StoreResult(out, errw io.Writer, res vault.StoreResult) {
	switch {
	case res.Stored:
		fmt.Fprintln(out, res.ID)
		if len(res.Superseded) > 0 {
			fmt.Fprintf(errw, "superseded: %s\n", strings.Join(res.Superseded, ", "))
		}
		if len(res.Linked) > 0 {
			fmt.Fprintf(errw, "linked as updated by this one (you may only read their namespace): %s\n", strings.Join(res.Linked, ", "))
		}
	case res.Duplicate:
		fmt.Fprintln(out, res.ID)
		fmt.Fprintln(errw, "a near-identical memory already exists: its id is above, nothing new was stored")
	case res.Reaffirmed:
		fmt.Fprintln(out, res.ID)
		fmt.Fprintln(errw, "this restates a live opinion: its date was refreshed")
	case len(res.Conflicts) > 0:
		fmt.Fprintln(errw, "not stored: live opinions of the same holder on the same aspect exist:")
		for _, r := range res.Conflicts {
			fmt.Fprintf(errw, "  %s  %s  (namespace %s)\n", r.ID, Inert(r.Stamped()), Inert(r.Namespace))
		}
		fmt.Fprintln(errw, "resend with --supersedes ID to replace one, or --keep-both to keep all")
	default:
		fmt.Fprintln(out, res.ID)
		if res.Message != "" {
			fmt.Fprintln(errw, res.Message)
		}
	}
}

// Record is one memory, a field a line (empty fields left out).
func Record(w io.Writer, r *vault.Record) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-13s %s\n", k, Inert(v))
		}
	}
	row("id", r.ID)
	row("text", r.Stamped())
	row("source", r.Source)
	row("discovered", r.Discovered)
	row("created", r.Created.Format("2006-01-02 15:04:05Z"))
	row("namespace", r.Namespace)
	row("tags", tagsWithOrigin(r))
	row("importance", fmt.Sprintf("%.2f", r.Importance))
	row("kind", r.Kind)
	row("expires", r.Expires)
	row("supersedes", strings.Join(r.Supersedes, ", "))
	row("superseded_by", r.SupersededBy)
	row("split_into", strings.Join(r.SplitInto, ", "))
	if r.Quarantined {
		row("quarantined", "yes: the content came from an untrusted source")
	}
	row("caller", r.Caller)
}

// tagsWithOrigin lists r's tags, marking those a retag pass inferred.
func tagsWithOrigin(r *vault.Record) string {
	inferred := r.InferredTags()
	out := make([]string, len(r.Tags))
	for i, t := range r.Tags {
		out[i] = t
		if slices.Contains(inferred, t) {
			out[i] += " (inferred)"
		}
	}
	return strings.Join(out, ", ")
}

// Search is a recall's results: the day read as of, then one line a hit
// with its match label, score, id and text, and the notes under it; with
// explain, why each came back. Nothing found goes to errw.
func Search(out, errw io.Writer, res vault.SearchResult, explain bool) {
	if res.AsOf != "" {
		from := ""
		if res.AsOfPhrase != "" {
			from = fmt.Sprintf(" (read from %q)", Inert(res.AsOfPhrase))
		}
		fmt.Fprintf(out, "as of %s%s: memories valid then first\n", res.AsOf, from)
	} else if explain {
		fmt.Fprintln(out, "as of now (the query names no past time)")
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(errw, "nothing shares a word or a meaning with the query")
		return
	}
	for _, h := range res.Hits {
		// The label is how far to rely on a result: strong, likely, or
		// weak (check it first).
		fmt.Fprintf(out, "%-6s  %.3f  %s  %s\n", h.Match, h.Score, h.ID[:12], Inert(h.Text))
		if h.ValidThen != "" {
			fmt.Fprintf(out, "        %s\n", Inert(h.ValidThen))
		}
		if h.Warning != "" {
			fmt.Fprintf(out, "        %s\n", h.Warning)
		}
		if h.UpdatedBy != "" {
			fmt.Fprintf(out, "       not current: updated by %s\n", h.UpdatedBy[:12])
		}
		if len(h.Replaces) > 0 {
			short := make([]string, len(h.Replaces))
			shown := false
			for i, id := range h.Replaces {
				short[i] = id[:min(12, len(id))]
				shown = shown || slices.ContainsFunc(res.Hits, func(o vault.SearchHit) bool { return o.ID == id })
			}
			hint := ""
			if !shown {
				hint = " (--history shows them)"
			}
			fmt.Fprintf(out, "       current: replaces %s%s\n", strings.Join(short, ", "), hint)
		}
		if h.MaybeUpdatedBy != "" {
			fmt.Fprintf(out, "       may not be current: %s, newer, names another choice\n", h.MaybeUpdatedBy[:12])
		}
		if explain && h.Explain != nil {
			explainHit(out, h)
		}
	}
}

func explainHit(w io.Writer, h vault.SearchHit) {
	e := h.Explain
	var terms []string
	for _, t := range e.Terms {
		terms = append(terms, fmt.Sprintf("%s (I=%.2f)", Inert(t.Term), t.Info))
	}
	fmt.Fprintf(w, "       semantic: cos %.3f -> p_vec %.3f, rank %d (window %d), weight %.2f (%.0f%% of the query unseen by the model)\n",
		e.Cosine, e.PVec, e.RankVec, e.Window, e.Reliability, 100*e.Unseen)
	without := ""
	if len(e.Framing) > 0 {
		quoted := make([]string, len(e.Framing))
		for i, f := range e.Framing {
			quoted[i] = strconv.Quote(f)
		}
		without = " (without " + strings.Join(quoted, ", ") + ")"
	}
	matched := strings.Join(terms, ", ")
	if matched == "" {
		matched = "nothing"
	}
	fmt.Fprintf(w, "       literal:  %s match%s, terms %s -> p_lex %.3f, rank %d\n", e.Mode, without, matched, e.PLex, e.RankLex)
	fmt.Fprintf(w, "       evidence %.3f (unaged %.3f, vault share %.2f) x priors (importance %+.3f, opinion %+.3f, reference %+.3f)\n",
		e.Evidence, e.Unaged, e.Share, e.ImportancePrior, e.OpinionPrior, e.ReferencePrior)
	rare := ""
	if e.Rare {
		rare = ", holds a rare query word"
	}
	fmt.Fprintf(w, "       confidence %.3f (%s): relevance %.3f, lead %+.3f over the next candidate, standout %+.3f over the 20th, p_vec %.3f, %.2f of the query unseen by the vault%s\n",
		h.Confidence, h.Match, e.Relevance, e.Lead, e.Standout, e.PVec, e.Novel, rare)
}

// OpinionsAudit is the opinion audit's report: backfilled facts, the
// clusters (newest first), and what was or would be changed.
func OpinionsAudit(w io.Writer, rep vault.OpinionsAuditReport) {
	fmt.Fprintf(w, "%d live opinions, %d of them facts that read as preferences\n", rep.Opinions, len(rep.Backfilled))
	for _, b := range rep.Backfilled {
		fmt.Fprintf(w, "  opinion? %s  %s (%s)\n", b.ID[:12], b.Text, b.Reason)
	}
	fmt.Fprintf(w, "%d clusters of opinions of one holder on one aspect\n", len(rep.Clusters))
	for i, cl := range rep.Clusters {
		fmt.Fprintf(w, "cluster %d:\n", i+1)
		for j, r := range cl.Opinions {
			mark := "keep    "
			switch {
			case j > 0 && rep.DryRun:
				mark = "would supersede"
			case j > 0:
				mark = "older   "
			}
			fmt.Fprintf(w, "  %s %s  %s [%s]\n", mark, r.ID[:12], r.Text, r.Namespace)
		}
	}
	switch {
	case rep.DryRun:
		n := 0
		for _, cl := range rep.Clusters {
			n += len(cl.Superseded)
		}
		fmt.Fprintf(w, "dry run: --keep-newest would supersede the %d opinions marked above and mark the %d facts above kind=opinion; nothing else, and nothing was changed\n", n, len(rep.Backfilled))
	case rep.Written:
		fmt.Fprintln(w, "kept the newest opinion of each cluster; the others are superseded and still readable by id")
	case len(rep.Clusters) > 0 || len(rep.Backfilled) > 0:
		fmt.Fprintln(w, "nothing was changed: merge by hand (store a merged opinion with --supersedes), or rerun with --keep-newest")
	}
}

// Retag is a retag pass's changes, one memory a line, and its totals.
func Retag(w io.Writer, rep vault.RetagReport, dryRun bool) {
	for _, ch := range rep.Changes {
		var parts []string
		for _, t := range ch.Added {
			parts = append(parts, "+"+t)
		}
		for _, t := range ch.Removed {
			parts = append(parts, "-"+t)
		}
		fmt.Fprintf(w, "%s  %s  %s\n", ch.ID[:12], strings.Join(parts, " "), ch.Text)
	}
	verb := "changed"
	if dryRun {
		verb = "would change"
	}
	fmt.Fprintf(w, "%s the tags of %d of %d memories (%d added, %d removed)\n", verb, len(rep.Changes), rep.Memories, rep.Added, rep.Removed)
	if rep.Skipped > 0 {
		fmt.Fprintf(w, "left %d alone: they changed or were forgotten during the pass (the next pass looks again)\n", rep.Skipped)
	}
}

// Swept is what a command says on stderr after the expiry sweep its open
// ran: a failure, or how many memories it removed (nothing when none).
func Swept(errw io.Writer, removed int, err error) {
	if err != nil {
		fmt.Fprintf(errw, "compartment: expiry sweep: %v\n", err)
	} else if removed > 0 {
		fmt.Fprintf(errw, "compartment: removed %d expired memories\n", removed)
	}
}
