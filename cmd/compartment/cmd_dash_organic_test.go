package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestDashLeadsWithYourMemories: a vault whose reference facts were all
// loaded today beside a few memories of the user's own. In headless
// Chromium the overview counts the user's memories by default (growth,
// stored today, newest, tags, sources), and its switch counts reference
// facts too; narrow table columns wrap between words, never inside one.
// The screenshots go to shotDir (COMPARTMENT_DASH_SHOTS keeps them).
func TestDashLeadsWithYourMemories(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	c := newMemCLI(t)
	v, err := vault.Open(c.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(memCLIPass)}, Caller: "user"})
	if err != nil {
		t.Fatal(err)
	}
	const nRef = 40
	var ref []vault.BulkFact
	for i := range nRef {
		ref = append(ref, vault.BulkFact{Text: fmt.Sprintf("Debian package number %d is maintained by the team %s", i, fillPeople[i%len(fillPeople)]),
			Source: "Debian package descriptions", Tags: []string{"reference", "debian"}})
	}
	if _, err := v.LoadReference(ref, "test"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	mine := []vault.StoreRequest{
		{Text: "Priya's daughter starts school on 3 September", Source: "from chat", Tags: []string{"family"}},
		{Text: "The staging database listens on port 5433", Source: "from chat", Tags: []string{"infra"}},
		{Text: "Lena prefers code reviews before noon", Source: "meeting notes", Tags: []string{"people"}},
		{Text: "The offsite moved to the Lisbon office", Source: "meeting notes", Created: now.AddDate(0, 0, -3), Raw: true},
		{Text: "Backups of the NAS run every night at 02:00", Source: "from chat", Created: now.AddDate(0, 0, -10), Raw: true},
	}
	for _, req := range mine {
		if res, err := v.Store(req); err != nil || !res.Stored {
			t.Fatalf("store %q: %+v %v", req.Text, res, err)
		}
	}
	v.Close()
	d := startDash(t, c, nil)
	shots := shotDir(t)

	b.do(chromedp.Navigate(d.url), chromedp.WaitVisible(chromedp.ID("n-organic")))
	checkCounts := func(scope string, want map[string]string) {
		t.Helper()
		for sel, n := range want {
			if got := b.text(sel); got != n {
				t.Errorf("%s: %s shows %q, want %s", scope, sel, got, n)
			}
		}
	}
	lastBar := func() string {
		return eval[string](b, `[...document.querySelectorAll("#growth rect.bar title")].pop().textContent`)
	}
	checkCounts("your memories", map[string]string{
		"#n-organic": "5", "#n-reference": strconv.Itoa(nRef), "#n-live": strconv.Itoa(nRef + 5), "#n-packs": "0",
		"#n-today": "3", "#n-tags": "3",
	})
	if bar := lastBar(); !strings.HasSuffix(bar, ": 3 stored, 5 in all") {
		t.Errorf("the growth chart counts reference facts: last period %q", bar)
	}
	if src := b.text("#sources"); strings.Contains(src, "Debian") || !strings.Contains(src, "from chat") {
		t.Errorf("sources: %q", src)
	}
	if newest := b.text("#newest"); strings.Contains(newest, "Debian") || !strings.Contains(newest, "Lena prefers code reviews before noon") ||
		!strings.HasSuffix(strings.TrimSpace(newest), "Backups of the NAS run every night at 02:00 "+now.AddDate(0, 0, -10).In(time.Local).Format("2006-01-02")+" · main · from chat") {
		t.Errorf("newest (newest first, the user's own): %q", newest)
	}
	b.shot(shots, "overview-yours")

	b.do(chromedp.Click(chromedp.ID("scope-switch")), chromedp.WaitVisible(chromedp.CSS(`#scope-switch[href="/"]`)))
	checkCounts("everything", map[string]string{"#n-organic": "5", "#n-today": strconv.Itoa(nRef + 3), "#n-tags": "5"})
	if bar := lastBar(); !strings.HasSuffix(bar, fmt.Sprintf(": %d stored, %d in all", nRef+3, nRef+5)) {
		t.Errorf("with reference facts, last period %q", bar)
	}
	if src := b.text("#sources"); !strings.Contains(src, "Debian package descriptions") {
		t.Errorf("sources with reference facts: %q", src)
	}
	b.shot(shots, "overview-all")

	b.do(chromedp.Navigate(d.origin + "/tags"))
	if tags := b.text("#tags"); strings.Contains(tags, "debian") || !strings.Contains(tags, "family") {
		t.Errorf("tags page counts reference facts: %q", tags)
	}

	// A narrow window: every word of the memory list sits on one line.
	b.do(chromedp.EmulateViewport(420, 900), chromedp.Navigate(d.origin+"/memories?all=1"), chromedp.WaitVisible(chromedp.CSS("table.list")))
	if s := b.text("#list-summary"); !strings.HasPrefix(s, strconv.Itoa(nRef+5)+" all live memories (reference facts and packs included)") {
		t.Errorf("list summary: %q", s)
	}
	broken := eval[[]string](b, `(() => {
		const out = [];
		for (const td of document.querySelectorAll("table.list td")) {
			const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
			for (let n; (n = walker.nextNode());) {
				const re = /\S+/g;
				for (let m; (m = re.exec(n.data));) {
					if (m[0].length > 24) continue; // a URL or id may have to break
					const r = document.createRange();
					r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
					const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
					if (lines.size > 1) out.push(m[0]);
				}
			}
		}
		return out;
	})()`)
	if len(broken) > 0 {
		t.Errorf("words broken across lines in the memory list: %q", broken)
	}
	b.shotTop(shots, "memories-narrow")
	b.checkOffline(d.origin)
	t.Logf("screenshots in %s", shots)
}
