package dash

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// count is one row of a breakdown: a name and how many memories have it.
type count struct {
	Name string
	N    int
}

// overview is what the first page shows. Counts are over what the caller
// may read; VaultLive is the whole vault's, for the "you see N of M" line.
// Live, Organic, Reference and Packs count every live memory; everything
// else (growth, stored today, newest, tags, sources, the breakdowns)
// counts the user's own memories only, unless All asks for reference
// facts and packs too.
type overview struct {
	All                                 bool // reference facts and packs counted too
	Live, Organic, Reference, Packs     int
	Superseded                          int
	Relations, AuditEntries, VaultLive  int
	Namespaces, Kinds, Callers, Sources []count
	OtherSources                        int // sources beyond the ones listed
	Tags                                int // distinct tags on live memories
	Growth                              chart
	Today, Newest                       []*vault.Record
	TodayCount                          int
	TodayDay                            string
	Status                              vault.Status
}

// maxSources, maxToday and maxNewest bound the overview's lists.
const (
	maxSources = 15
	maxToday   = 50
	maxNewest  = 10
)

// organic says whether r is the user's own: stored by them or their
// agents, not a reference fact and not a pack's record.
func organic(r *vault.Record) bool {
	return !r.Reference && r.Namespace != "packs" && !strings.HasPrefix(r.Namespace, "packs/")
}

// inScope keeps the records a page counts: the user's own, or all.
func inScope(recs []*vault.Record, all bool) []*vault.Record {
	if all {
		return recs
	}
	out := make([]*vault.Record, 0, len(recs))
	for _, r := range recs {
		if organic(r) {
			out = append(out, r)
		}
	}
	return out
}

// summarize counts the records by namespace, kind, caller and source,
// organic against reference facts and packs, and what was stored today
// (local time), over the user's own memories unless all.
func summarize(recs []*vault.Record, st vault.Status, rels int, now time.Time, all bool) overview {
	o := overview{All: all, Status: st, Relations: rels, AuditEntries: st.AuditEntries, VaultLive: st.Live}
	for _, r := range recs {
		switch {
		case !r.Live():
		case r.Reference:
			o.Live++
			o.Reference++
		case !organic(r):
			o.Live++
			o.Packs++
		default:
			o.Live++
			o.Organic++
		}
	}
	recs = inScope(recs, all)
	ns, kinds, callers, sources := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	tags := map[string]bool{}
	today := localDay(now)
	o.TodayDay = today
	for _, r := range recs {
		if localDay(r.Created) == today {
			o.TodayCount++
		}
		if !r.Live() {
			o.Superseded++
			continue
		}
		ns[r.Namespace]++
		kinds[r.Kind]++
		callers[r.Caller]++
		sources[r.Source]++
		for _, t := range r.Tags {
			tags[t] = true
		}
	}
	o.Tags = len(tags)
	o.Namespaces, o.Kinds, o.Callers = ranked(ns), ranked(kinds), ranked(callers)
	o.Sources = ranked(sources)
	if len(o.Sources) > maxSources {
		for _, c := range o.Sources[maxSources:] {
			o.OtherSources += c.N
		}
		o.Sources = o.Sources[:maxSources]
	}
	o.Today = storedOn(recs, today, maxToday)
	o.Newest = newest(recs, maxNewest)
	o.Growth = growthChart(recs, now)
	return o
}

// newest returns up to limit live records, newest stored first (by their
// stored time: an import keeps the dates it was given).
func newest(recs []*vault.Record, limit int) []*vault.Record {
	var out []*vault.Record
	for _, r := range recs {
		if r.Live() {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *vault.Record) int { return b.Created.Compare(a.Created) })
	return out[:min(limit, len(out))]
}

// storedOn returns up to limit records created on day (local), newest
// first.
func storedOn(recs []*vault.Record, day string, limit int) []*vault.Record {
	var out []*vault.Record
	for i := len(recs) - 1; i >= 0 && len(out) < limit; i-- {
		if localDay(recs[i].Created) == day {
			out = append(out, recs[i])
		}
	}
	return out
}

// ranked turns counts into rows, most first, then by name.
func ranked(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{Name: k, N: n})
	}
	slices.SortFunc(out, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// tagCounts counts the tags of live memories: the user's own, or all.
func tagCounts(recs []*vault.Record, all bool) []count {
	m := map[string]int{}
	for _, r := range recs {
		if r.Live() && (all || organic(r)) {
			for _, t := range r.Tags {
				m[t]++
			}
		}
	}
	return ranked(m)
}

// localDay is t's calendar date in the local zone, the zone search's
// since/until filters use.
func localDay(t time.Time) string { return t.In(time.Local).Format(vault.DateLayout) }

// listFilter selects memories for the list page; empty fields match all.
type listFilter struct {
	Namespace, Tag, Kind, Caller, Source, Day string
	Superseded                                bool // superseded ones instead of live ones
	All                                       bool // reference facts and packs too
}

// match reports whether r passes the filter.
func (f listFilter) match(r *vault.Record) bool {
	switch {
	case f.Superseded == r.Live(),
		!f.All && !organic(r),
		f.Namespace != "" && r.Namespace != f.Namespace,
		f.Kind != "" && r.Kind != f.Kind,
		f.Caller != "" && r.Caller != f.Caller,
		f.Source != "" && r.Source != f.Source,
		f.Day != "" && localDay(r.Created) != f.Day:
		return false
	case f.Tag != "":
		return slices.ContainsFunc(r.Tags, func(t string) bool { return strings.EqualFold(t, f.Tag) })
	}
	return true
}

// Query is the filter as a query string, with all set as given: the list
// page's switch between the user's own memories and everything.
func (f listFilter) Query(all bool) string {
	v := url.Values{}
	for name, val := range map[string]string{"ns": f.Namespace, "tag": f.Tag, "kind": f.Kind, "caller": f.Caller, "source": f.Source, "day": f.Day} {
		if val != "" {
			v.Set(name, val)
		}
	}
	if f.Superseded {
		v.Set("superseded", "1")
	}
	if all {
		v.Set("all", "1")
	}
	return v.Encode()
}

// describe says in words what the filter selects.
func (f listFilter) describe() string {
	var parts []string
	for _, p := range []struct{ name, val string }{
		{"namespace", f.Namespace}, {"tag", f.Tag}, {"kind", f.Kind},
		{"caller", f.Caller}, {"source", f.Source}, {"stored on", f.Day},
	} {
		if p.val != "" {
			parts = append(parts, p.name+" "+p.val)
		}
	}
	state := "live memories of your own"
	if f.Superseded {
		state = "superseded memories of your own"
	}
	if f.All {
		state = strings.Replace(state, " of your own", "", 1) + " (reference facts and packs included)"
	}
	if len(parts) == 0 {
		return "all " + state
	}
	return state + " with " + strings.Join(parts, ", ")
}

// chart is the growth-over-time chart, laid out for an SVG viewBox of
// Width × Height: a bar per period (memories stored in it, left scale) and
// a line for the running total (right scale).
type chart struct {
	Width, Height int
	Bars          []bar
	Line          string // polyline points
	Period        string // "day", "7 days", ...
	First, Last   string // dates at either end
	MaxBar, Total int
	Empty         bool
}

type bar struct {
	X, Y, W, H float64
	Title      string
}

// Chart geometry (SVG user units) and the most periods it shows.
const (
	chartW, chartH = 720, 200
	chartPad       = 4
	maxPeriods     = 90
)

// growthChart buckets the records' store dates into at most maxPeriods
// periods from the first one to today.
func growthChart(recs []*vault.Record, now time.Time) chart {
	c := chart{Width: chartW, Height: chartH, Empty: len(recs) == 0}
	if c.Empty {
		return c
	}
	start := dayStart(recs[0].Created)
	for _, r := range recs {
		if d := dayStart(r.Created); d.Before(start) {
			start = d
		}
	}
	end := dayStart(now)
	if end.Before(start) {
		end = start
	}
	days := int(end.Sub(start).Hours()/24+0.5) + 1
	step := max(1, int(math.Ceil(float64(days)/maxPeriods)))
	periods := (days + step - 1) / step
	perPeriod := make([]int, periods)
	for _, r := range recs {
		i := int(dayStart(r.Created).Sub(start).Hours()/24+0.5) / step
		perPeriod[min(max(i, 0), periods-1)]++
	}
	c.Period = "day"
	if step > 1 {
		c.Period = fmt.Sprintf("%d days", step)
	}
	c.First, c.Last = start.Format(vault.DateLayout), end.Format(vault.DateLayout)
	c.MaxBar, c.Total = slices.Max(perPeriod), len(recs)
	slot := float64(chartW-2*chartPad) / float64(periods)
	plotH := float64(chartH - 2*chartPad)
	var pts []string
	running := 0
	for i, n := range perPeriod {
		running += n
		x := chartPad + float64(i)*slot
		h := plotH * float64(n) / float64(c.MaxBar)
		from := start.AddDate(0, 0, i*step).Format(vault.DateLayout)
		c.Bars = append(c.Bars, bar{X: x, Y: chartPad + plotH - h, W: min(max(slot*0.8, 0.5), 40), H: h,
			Title: fmt.Sprintf("%s: %d stored, %d in all", from, n, running)})
		y := chartPad + plotH - plotH*float64(running)/float64(c.Total)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x+slot/2, y))
	}
	c.Line = strings.Join(pts, " ")
	return c
}

// dayStart is midnight of t's local calendar day, as a UTC date.
func dayStart(t time.Time) time.Time {
	y, m, d := t.In(time.Local).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// graph is the relation graph as the page's script draws it: every entity
// once (case-insensitively, as the vault matches them), every relation an
// edge between two of them.
type graph struct {
	Nodes     []graphNode `json:"nodes"`
	Edges     []graphEdge `json:"edges"`
	AsOf      string      `json:"as_of,omitempty"`
	Truncated bool        `json:"truncated"`
}

type graphNode struct {
	Name   string `json:"name"`
	Degree int    `json:"degree"`
}

type graphEdge struct {
	ID        string `json:"id"`
	Source    int    `json:"source"`
	Target    int    `json:"target"`
	Predicate string `json:"predicate"`
	Src       string `json:"src,omitempty"` // memory the relation comes from
	From      string `json:"valid_from,omitempty"`
	To        string `json:"valid_to,omitempty"`
}

// buildGraph turns relations into nodes and edges.
func buildGraph(res vault.RelationResult, asOf string) graph {
	g := graph{AsOf: asOf, Truncated: res.Truncated, Nodes: []graphNode{}, Edges: []graphEdge{}}
	index := map[string]int{}
	node := func(name string) int {
		key := strings.ToLower(name)
		i, ok := index[key]
		if !ok {
			i = len(g.Nodes)
			index[key] = i
			g.Nodes = append(g.Nodes, graphNode{Name: name})
		}
		g.Nodes[i].Degree++
		return i
	}
	for _, rel := range res.Relations {
		s, t := node(rel.Subject), node(rel.Object)
		g.Edges = append(g.Edges, graphEdge{ID: rel.ID, Source: s, Target: t, Predicate: rel.Predicate,
			Src: rel.Src, From: rel.From, To: rel.To})
	}
	return g
}
