package vault

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
)

func TestOpinionsAuditReportsThenKeepsNewest(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	// An old vault: two overlapping opinions kept on purpose (supersedes=[]),
	// a preference stored as a fact before kinds existed, and facts.
	old := h.store(v, StoreRequest{Text: "Priya prefers tea in the morning at the office", Kind: KindOpinion}).ID
	h.now = h.now.Add(time.Hour)
	mid := h.store(v, StoreRequest{Text: "Priya prefers coffee in the morning at the office", Kind: KindOpinion, Supersedes: []string{}}).ID
	h.now = h.now.Add(time.Hour)
	asFact := h.store(v, StoreRequest{Text: "Priya prefers cocoa in the morning at the office"}).ID
	other := h.store(v, StoreRequest{Text: "Max recommends restic for laptop backups", Kind: KindOpinion}).ID
	fact := h.store(v, StoreRequest{Text: "The staging database runs on port 5433"}).ID

	threshold := v.Config().Settings.OpinionUpdateThreshold
	before, _ := os.ReadFile(h.path)
	rep, err := v.OpinionsAudit(OpinionsAuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Backfilled) != 1 || rep.Backfilled[0].ID != asFact || rep.Backfilled[0].Reason != `says "prefers"` {
		t.Fatalf("backfill %+v", rep.Backfilled)
	}
	if len(rep.Clusters) != 1 || rep.Clusters[0].Keep != asFact || len(rep.Clusters[0].Opinions) != 3 || rep.Written {
		t.Fatalf("clusters %+v", rep.Clusters)
	}
	if got := []string{rep.Clusters[0].Opinions[1].ID, rep.Clusters[0].Opinions[2].ID}; got[0] != mid || got[1] != old {
		t.Errorf("cluster order %v, want newest first", got)
	}
	if after, _ := os.ReadFile(h.path); !bytes.Equal(before, after) {
		t.Errorf("a report-only audit wrote to the vault")
	}

	// --no-backfill: the fact stays out, the two opinions still overlap.
	rep, _ = v.OpinionsAudit(OpinionsAuditOptions{NoBackfill: true})
	if len(rep.Backfilled) != 0 || len(rep.Clusters) != 1 || rep.Clusters[0].Keep != mid || len(rep.Clusters[0].Opinions) != 2 {
		t.Errorf("no backfill: %+v", rep)
	}
	// A threshold above every cosine finds no overlap.
	if rep, _ = v.OpinionsAudit(OpinionsAuditOptions{Threshold: 0.999}); len(rep.Clusters) != 0 {
		t.Errorf("threshold 0.999: %+v", rep.Clusters)
	}
	if got := v.Config().Settings.OpinionUpdateThreshold; got != threshold {
		t.Errorf("the audit left the threshold at %v, want it back at %v", got, threshold)
	}

	rep, err = v.OpinionsAudit(OpinionsAuditOptions{KeepNewest: true})
	if err != nil || !rep.Written {
		t.Fatal(rep, err)
	}
	v.Close()
	v = h.open("user")
	keep, _ := v.Get(asFact)
	if keep.Kind != KindOpinion || !keep.Live() || len(keep.Supersedes) != 2 {
		t.Errorf("kept: %+v", keep)
	}
	for _, id := range []string{old, mid} {
		if r, _ := v.Get(id); r.Live() || r.SupersededBy != asFact {
			t.Errorf("%s: superseded by %q", id, r.SupersededBy)
		}
	}
	for _, id := range []string{other, fact} {
		if r, _ := v.Get(id); !r.Live() {
			t.Errorf("%s was superseded but overlaps nothing", id)
		}
	}
	if rep, _ := v.OpinionsAudit(OpinionsAuditOptions{}); len(rep.Clusters) != 0 || len(rep.Backfilled) != 0 {
		t.Errorf("a second audit still finds %+v", rep)
	}
	if a, err := v.AuditVerify(); err != nil || !a.OK {
		t.Errorf("audit chain: %+v %v", a, err)
	}
}

func TestPreferenceRule(t *testing.T) {
	for text, want := range map[string]string{
		"Ana prefers window seats":                `says "prefers"`,
		"Max's favourite editor is neovim":        `says "favourite"`,
		"Tabs are better than spaces for Go":      `says "better than"`,
		"The VPN gateway listens on port 1194":    "",
		"Omar wants the report by Friday":         "",
		"The likelihood of rain is low on Monday": "",
	} {
		if got := preferenceReason(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// Two opinions that each overlap a third are not grouped through it:
// --keep-newest supersedes an opinion only by a newer one on its own
// aspect.
func TestOpinionsAuditNeverChainsAspects(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, enc)
	v := h.open("user")
	keepBoth := []string{}
	lunchTea := h.store(v, StoreRequest{Text: "Lena prefers tea with lunch.", Kind: KindOpinion, Supersedes: keepBoth}).ID
	h.now = h.now.Add(time.Hour)
	lunchWater := h.store(v, StoreRequest{Text: "Lena prefers sparkling water with lunch.", Kind: KindOpinion, Supersedes: keepBoth}).ID
	h.now = h.now.Add(time.Hour)
	dinnerWater := h.store(v, StoreRequest{Text: "Lena prefers sparkling water at dinner.", Kind: KindOpinion, Supersedes: keepBoth}).ID
	if DecideOpinion("Lena prefers tea with lunch.", "Lena prefers sparkling water at dinner.", 1, v.Calibration()) != OpinionUnrelated {
		t.Fatal("the test needs tea with lunch and water at dinner on two aspects")
	}
	rep, err := v.OpinionsAudit(OpinionsAuditOptions{KeepNewest: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Clusters) != 1 || rep.Clusters[0].Keep != dinnerWater || len(rep.Clusters[0].Superseded) != 1 || rep.Clusters[0].Superseded[0] != lunchWater {
		t.Fatalf("clusters %+v: want only sparkling water with lunch under sparkling water at dinner", rep.Clusters)
	}
	if r, _ := v.Get(lunchTea); !r.Live() {
		t.Fatal("a dry run superseded a record")
	}
	if _, err := v.OpinionsAudit(OpinionsAuditOptions{KeepNewest: true}); err != nil {
		t.Fatal(err)
	}
	for id, live := range map[string]bool{lunchTea: true, lunchWater: false, dinnerWater: true} {
		if r, _ := v.Get(id); r.Live() != live {
			t.Errorf("%q: live %v, want %v", r.Text, r.Live(), live)
		}
	}
}
