package dash

import (
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// TestSummarizeCountsYourMemories: reference facts and pack records are
// counted on their cards but not in growth, stored today, newest, tags,
// sources or the breakdowns, unless all is asked for.
func TestSummarizeCountsYourMemories(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.Local)
	rec := func(text, ns, source string, ref bool, created time.Time, tags ...string) *vault.Record {
		return &vault.Record{ID: text, Text: text, Namespace: ns, Source: source, Reference: ref, Created: created, Tags: tags, Kind: vault.KindFact, Caller: "user"}
	}
	var recs []*vault.Record
	for range 30 {
		recs = append(recs, rec("ref", "main", "Debian", true, now, "reference", "debian"))
	}
	recs = append(recs,
		rec("pack", "packs/ops", "ops pack", false, now, "ops"),
		rec("old", "main", "from chat", false, now.AddDate(0, 0, -5), "family"),
		rec("today", "work", "meeting notes", false, now, "work"),
	)
	mine := summarize(recs, vault.Status{Live: 33}, 0, now, false)
	all := summarize(recs, vault.Status{Live: 33}, 0, now, true)
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"organic", mine.Organic, 2}, {"reference", mine.Reference, 30}, {"packs", mine.Packs, 1}, {"live", mine.Live, 33},
		{"today", mine.TodayCount, 1}, {"tags", mine.Tags, 2}, {"growth", mine.Growth.Total, 2}, {"newest", len(mine.Newest), 2},
		{"sources", len(mine.Sources), 2}, {"namespaces", len(mine.Namespaces), 2},
		{"all today", all.TodayCount, 32}, {"all tags", all.Tags, 5}, {"all growth", all.Growth.Total, 33},
		{"all sources", len(all.Sources), 4}, {"all namespaces", len(all.Namespaces), 3}, {"all organic", all.Organic, 2},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if mine.Newest[0].Text != "today" || mine.Newest[1].Text != "old" {
		t.Errorf("newest: %v, %v", mine.Newest[0].Text, mine.Newest[1].Text)
	}
	if got := tagCounts(recs, false); len(got) != 2 {
		t.Errorf("tag counts of your own: %+v", got)
	}
	f := listFilter{}
	if f.match(recs[0]) || f.match(recs[30]) || !f.match(recs[31]) {
		t.Error("the memory list shows reference facts or packs by default")
	}
	if f.All = true; !f.match(recs[0]) || !f.match(recs[30]) {
		t.Error("the memory list with all hides reference facts or packs")
	}
	if q := (listFilter{Namespace: "work", Superseded: true}).Query(true); q != "all=1&ns=work&superseded=1" {
		t.Errorf("Query = %q", q)
	}
}
