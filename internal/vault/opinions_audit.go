package vault

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// OpinionsAuditOptions configure [Vault.OpinionsAudit].
type OpinionsAuditOptions struct {
	// Threshold overrides opinion_update_threshold for this audit (0: the
	// setting). It is handed to the store's own conflict rule.
	Threshold float64
	// NoBackfill leaves records that are not marked kind=opinion alone.
	NoBackfill bool
	// KeepNewest writes: backfills kind=opinion and supersedes all but the
	// newest opinion of each cluster. Without it the audit only reports.
	KeepNewest bool
	// DryRun, with KeepNewest, lists exactly what KeepNewest would change
	// (each cluster's Superseded, the backfilled records) and writes
	// nothing.
	DryRun bool
	// Progress hears how many records have been looked at.
	Progress func(done, total int)
}

// OpinionBackfill is a record that reads as a preference but was stored
// as a fact (vaults written before kinds existed).
type OpinionBackfill struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// OpinionCluster is a set of live opinions that overlap by the store's
// own rule, newest first.
type OpinionCluster struct {
	Keep       string    `json:"keep"` // the newest
	Superseded []string  `json:"superseded,omitempty"`
	Opinions   []*Record `json:"opinions"`
}

// OpinionsAuditReport is what an audit found (and, with KeepNewest, did).
type OpinionsAuditReport struct {
	Opinions   int               `json:"opinions"` // live opinions looked at, backfilled ones included
	Backfilled []OpinionBackfill `json:"backfilled"`
	Clusters   []OpinionCluster  `json:"clusters"`
	Written    bool              `json:"written"`
	DryRun     bool              `json:"dry_run,omitempty"` // the changes listed were not made
}

// preferenceRE is the backfill rule: a claim reads as a preference when it
// says someone prefers, likes, dislikes, recommends or advises something,
// names a favourite, or ranks one thing over another. It is deliberately
// narrow (verbs of preference, not every "wants" or "should"), because a
// fact turned into an opinion starts replacing its neighbours.
var preferenceRE = regexp.MustCompile(`(?i)\b(prefers?|preferred|preference|likes|dislikes?|loves|hates|favou?rite|recommends?|recommended|advises?|advised|would rather|rather than|better than|worse than|in my opinion|i think|i believe)\b`)

// preferenceReason returns why text reads as a preference, or "".
func preferenceReason(text string) string {
	if m := preferenceRE.FindString(text); m != "" {
		return `says "` + strings.ToLower(m) + `"`
	}
	return ""
}

// OpinionsAudit finds overlapping live opinions, deciding "overlap" with
// the rule the store applies to a new opinion ([Vault.opinionVerdict]),
// and groups them into clusters. With KeepNewest it writes one update:
// the backfilled kinds, and every opinion but the newest of each cluster
// superseded by the newest.
func (v *Vault) OpinionsAudit(opts OpinionsAuditOptions) (OpinionsAuditReport, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return OpinionsAuditReport{}, err
	}
	rep := OpinionsAuditReport{Backfilled: []OpinionBackfill{}, Clusters: []OpinionCluster{}}
	opinions := map[string]*Record{} // id -> the record as an opinion (backfilled ones are copies)
	for _, r := range v.st.records.all() {
		if !r.Live() || r.Reference || v.checkWrite(r.Namespace) != nil {
			continue
		}
		switch {
		case r.Kind == KindOpinion:
			opinions[r.ID] = r
		case !opts.NoBackfill:
			if why := preferenceReason(r.Text); why != "" {
				next := *r
				next.Kind, next.Affirmed = KindOpinion, r.Created
				opinions[r.ID] = &next
				rep.Backfilled = append(rep.Backfilled, OpinionBackfill{ID: r.ID, Text: r.Text, Reason: why})
			}
		}
	}
	slices.SortFunc(rep.Backfilled, func(a, b OpinionBackfill) int {
		return cmp.Compare(v.st.records.get(a.ID).Seq, v.st.records.get(b.ID).Seq)
	})
	rep.Opinions = len(opinions)
	rep.Clusters = v.clusterOpinions(opinions, opts)
	if !opts.KeepNewest || (len(rep.Backfilled) == 0 && len(rep.Clusters) == 0) {
		return rep, nil
	}
	if opts.DryRun {
		for i := range rep.Clusters {
			c := &rep.Clusters[i]
			for _, old := range c.Opinions[1:] {
				c.Superseded = append(c.Superseded, old.ID)
			}
		}
		rep.DryRun = true
		return rep, nil
	}
	err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		for _, bf := range rep.Backfilled {
			next := *opinions[bf.ID]
			b.putRecord(&next, "backfill")
		}
		for i := range rep.Clusters {
			c := &rep.Clusters[i]
			keep := *b.current(c.Keep)
			for _, old := range c.Opinions[1:] {
				next := *b.current(old.ID)
				next.SupersededBy = keep.ID
				b.putRecord(&next, "supersede")
				c.Superseded = append(c.Superseded, old.ID)
			}
			keep.Supersedes = append(slices.Clone(keep.Supersedes), c.Superseded...)
			b.putRecord(&keep, "keep-newest")
		}
		return b.changes, nil
	})
	if err != nil {
		return OpinionsAuditReport{}, err
	}
	rep.Written = true
	return rep, nil
}

// clusterOpinions groups opinions the store's rule relates (a conflict
// or a restatement: the same holder and aspect) into clusters of two or
// more, each newest first, the clusters in the order of their newest
// member. A cluster is its newest opinion and the older ones the rule
// relates to that one directly, so --keep-newest only ever supersedes an
// opinion by one on its own aspect: two opinions that each overlap a
// third (tea with lunch, sparkling water with lunch, sparkling water at
// dinner) are never grouped through it. An opinion related to several
// newer ones joins the newest. The caller holds v.mu.
func (v *Vault) clusterOpinions(opinions map[string]*Record, opts OpinionsAuditOptions) []OpinionCluster {
	ids := make([]string, 0, len(opinions))
	for id := range opinions {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(opinions[a].Seq, opinions[b].Seq) })
	if opts.Threshold > 0 {
		saved := v.cfg.Settings.OpinionUpdateThreshold
		v.cfg.Settings.OpinionUpdateThreshold = opts.Threshold
		defer func() { v.cfg.Settings.OpinionUpdateThreshold = saved }()
	}
	related := map[string]map[string]bool{}
	relate := func(a, b string) {
		if related[a] == nil {
			related[a] = map[string]bool{}
		}
		related[a][b] = true
	}
	for i, id := range ids {
		for _, other := range v.opinionVerdict(opinions[id], opinions) {
			relate(id, other)
			relate(other, id)
		}
		if opts.Progress != nil && (i%256 == 0 || i == len(ids)-1) {
			opts.Progress(i+1, len(ids))
		}
	}
	newestFirst := slices.Clone(ids)
	slices.SortFunc(newestFirst, func(a, b string) int { return -compareNewest(opinions[a], opinions[b]) })
	placed := map[string]bool{}
	var out []OpinionCluster
	for _, keep := range newestFirst {
		if placed[keep] || len(related[keep]) == 0 {
			continue
		}
		g := []*Record{opinions[keep]}
		for _, id := range newestFirst {
			if !placed[id] && id != keep && related[keep][id] && compareNewest(opinions[id], opinions[keep]) <= 0 {
				g = append(g, opinions[id])
			}
		}
		if len(g) < 2 {
			continue
		}
		for _, r := range g {
			placed[r.ID] = true
		}
		out = append(out, OpinionCluster{Keep: keep, Opinions: g})
	}
	return out
}

// compareNewest orders opinions by their last affirmation, then by when
// they were stored, then by write order.
func compareNewest(a, b *Record) int {
	return cmp.Or(lastAffirmed(a).Compare(lastAffirmed(b)), a.Created.Compare(b.Created), cmp.Compare(a.Seq, b.Seq))
}

func lastAffirmed(r *Record) time.Time {
	if r.Affirmed.IsZero() {
		return r.Created
	}
	return r.Affirmed
}

// opinionVerdict asks the store's own opinion rule ([Vault.opinionCheck],
// the one memory_store applies to a new opinion) which live opinions r
// conflicts with or restates, as if r were being stored now. It is the
// one place the audit touches that rule, so a change to the rule changes
// the audit with it. The scratch batch it uses is thrown away. The caller
// holds v.mu.
func (v *Vault) opinionVerdict(r *Record, opinions map[string]*Record) []string {
	var similar []similarHit
	for _, h := range v.similarTo(v.newBatch(), r) {
		if h.rec.ID == r.ID {
			continue
		}
		if op, ok := opinions[h.rec.ID]; ok {
			h.rec = op // a backfilled record counts as the opinion it would become
		}
		similar = append(similar, h)
	}
	res, found := v.opinionCheck(v.newBatch(), r, similar)
	if !found {
		return nil
	}
	if res.Reaffirmed {
		return []string{res.ID}
	}
	out := make([]string, 0, len(res.Conflicts))
	for _, c := range res.Conflicts {
		out = append(out, c.ID)
	}
	return out
}
