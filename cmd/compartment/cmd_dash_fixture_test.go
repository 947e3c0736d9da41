package main

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// dashFixture is what a dashboard test vault holds besides its filler.
type dashFixture struct {
	heron   string // the memory live search must find
	xss     string // a memory whose text is an injection payload
	older   string // superseded by newer
	newer   string
	entity  string // an entity of the relation graph
	callers []string
}

// Words the filler claims are made of: every claim picks a person, an
// action, a thing and a place, so claims differ in content words, not only
// in a number (which the store would rightly keep apart anyway).
var (
	fillPeople  = []string{"Amara", "Bruno", "Chen", "Dalia", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wren", "Xenia", "Yusuf", "Zofia"}
	fillActions = []string{"maintains", "reviews", "deploys", "prefers", "documented", "rebuilt", "monitors", "owns", "migrated", "benchmarks", "audits", "configured", "retired", "tested", "renamed"}
	fillThings  = []string{"the billing service", "the nightly backup job", "the search cluster", "the invoice template", "the VPN gateway", "the design system", "the mobile release", "the payroll export", "the staging printer", "the metrics dashboard", "the onboarding guide", "the CI runners", "the data warehouse", "the SSO bridge", "the mail relay", "the feature flags", "the GPU queue", "the wiki", "the status page", "the test fixtures"}
	fillPlaces  = []string{"in Lisbon", "for the Oslo office", "on Tuesdays", "since March", "with Terraform", "after the outage", "for the audit", "in the cold region", "before each release", "from the old rack", "under ticket OPS", "with a checklist"}
	fillNS      = []string{"main", "work", "work/infra", "home", "research"}
	fillTags    = []string{"infra", "people", "billing", "release", "security", "docs"}
)

// buildDashVault fills the vault at c.vault with n memories spread over the
// last 120 days by three callers, a supersede pair, a few relations and an
// injection payload, with the bundled model (batch stores, one fsync each).
func buildDashVault(t testing.TB, path string, n int) dashFixture {
	t.Helper()
	enc, err := openEncoder("")
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	fx := dashFixture{callers: []string{"user", "claude", "hermes"}}
	rng := rand.New(rand.NewPCG(17, 3))
	now := time.Now().UTC()
	open := func(caller string) *vault.Vault {
		v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(memCLIPass)}, Caller: caller, Encoder: enc})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const batch = 1000
	for i := 0; i < n; i += batch {
		caller := fx.callers[(i/batch)%len(fx.callers)]
		v := open(caller)
		reqs := make([]vault.StoreRequest, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			text := fmt.Sprintf("%s %s %s %s (note %d)", fillPeople[rng.IntN(len(fillPeople))], fillActions[rng.IntN(len(fillActions))],
				fillThings[rng.IntN(len(fillThings))], fillPlaces[rng.IntN(len(fillPlaces))], j)
			age := time.Duration(rng.Float64() * 120 * 24 * float64(time.Hour))
			reqs = append(reqs, vault.StoreRequest{Text: text, Source: []string{"from chat", "read from README", "web search", "meeting notes"}[j%4],
				Namespace: fillNS[j%len(fillNS)], Tags: []string{fillTags[j%len(fillTags)]}, Created: now.Add(-age), Raw: true, Supersedes: []string{}})
		}
		if _, err := v.StoreMany(reqs); err != nil {
			t.Fatal(err)
		}
		v.Close()
	}
	v := open("user")
	defer v.Close()
	store := func(req vault.StoreRequest) string {
		res, err := v.Store(req)
		if err != nil || !res.Stored {
			t.Fatalf("store %q: %+v %v", req.Text, res, err)
		}
		return res.ID
	}
	fx.heron = store(vault.StoreRequest{Text: "The staging database for project Heron listens on port 5433", Source: "from chat", Namespace: "work", Tags: []string{"infra"}})
	fx.xss = store(vault.StoreRequest{Text: `Payload <script>window.pwned=1</script> and "><img src=x onerror="window.pwned=2"> stays text`, Source: `web <b>page</b>`, Namespace: "main", Quarantined: true})
	fx.older = store(vault.StoreRequest{Text: "The team standup is at 9:30 in room Kestrel", Source: "from chat", Namespace: "work"})
	fx.newer = store(vault.StoreRequest{Text: "The team standup moved to 10:00 in room Osprey", Source: "from chat", Namespace: "work", Supersedes: []string{fx.older}})
	fx.entity = "Northwind"
	for _, l := range []vault.LinkRequest{
		{Subject: "Max", Predicate: "works_at", Object: "Northwind", From: "2024-01-01", To: "2025-06-30", Src: fx.older},
		{Subject: "Max", Predicate: "works_at", Object: "Harbour Labs", From: "2025-07-01"},
		{Subject: "Priya", Predicate: "manages", Object: "Max"},
		{Subject: "Heron", Predicate: "uses", Object: "Postgres", Src: fx.heron},
		{Subject: "Northwind", Predicate: "acquired", Object: "Blue <i>Fin</i>"},
	} {
		if _, err := v.Link(l); err != nil {
			t.Fatal(err)
		}
	}
	return fx
}
