package vault

import (
	"fmt"
	"slices"
	"testing"

	"github.com/compartment/compartment/embed"
)

// storePairsHeldOut are store pairs of the four kinds the evaluation's
// store_pairs hold, written for #26 (session 11) with people, topics and
// words that neither the dev set nor the other held-out tables use:
// food, tools, travel, work habits, media, sport, home. Facts that differ
// only in a number, a name, a negation, an antonym or who does what to
// whom; true duplicates (case, punctuation, an article, a hyphen);
// changed minds (an alternative swapped, a comparison reversed, a
// judgement turned, a stance negated); restated opinions (another stance
// verb, a fronted context, a possessive with its complement, a gerund, a
// degree word said otherwise, a hedge added).
//
// They are stored the way claims_eval.py stores them: the distinct and
// duplicate pairs as facts, the others as opinions, each pair in a
// namespace of its own. On the rules before this table (both bundled
// models): distinct 14/14, duplicate 12/12, update 12/14 (v1; v2 14/14),
// restate 10/14 of the first batch; after session 12's rules (a verb
// of the act after "would rather", a modifier after its head) restate
// 30/33 of the whole table. A known miss is always a conflict,
// never a fold: a missed restatement asks the writer, a fold would lose a
// fact.
var storePairsHeldOut = []storePair{
	// Distinct facts: a number, a name, a negation, an antonym, a role.
	{"distinct", "The garage door code is 4412.", "The garage door code is 4421.", ""},
	{"distinct", "Tobias is lactose intolerant.", "Tobias is not lactose intolerant.", ""},
	{"distinct", "Priya mentors Kwame Mensah.", "Kwame Mensah mentors Priya.", ""},
	{"distinct", "The metrics exporter listens on port 9100.", "The metrics exporter listens on port 9101.", ""},
	{"distinct", "Leila is allergic to penicillin.", "Ahmed is allergic to penicillin.", ""},
	{"distinct", "The spring sale begins on 2026-03-02.", "The spring sale closes on 2026-03-02.", ""},
	{"distinct", "Nils waters the greenhouse every third day.", "Nils waters the greenhouse every second day.", ""},
	{"distinct", "Release 2.4 of the app dropped support for Android 9.", "Release 2.4 of the app added support for Android 9.", ""},
	{"distinct", "The invoicing worker is written in Rust.", "The scheduler worker is written in Rust.", ""},
	{"distinct", "Carla approves Ben Osei's expense reports.", "Ben Osei approves Carla's expense reports.", ""},
	{"distinct", "Swimming lessons are on Mondays at 18:15.", "Swimming lessons are on Fridays at 18:15.", ""},
	{"distinct", "The nightly backup job runs in eu-north-1.", "The nightly restore job runs in eu-north-1.", ""},
	{"distinct", "The contractor may access the shared drive.", "The contractor may not access the shared drive.", ""},
	{"distinct", "Lena is Sofia's older sister.", "Lena is Sofia's younger sister.", ""},
	// True duplicates.
	{"duplicate", "The NAS backup runs at 02:00 every night.", "the NAS backup runs at 02:00 every night", ""},
	{"duplicate", "Oliver has piano lessons on Mondays at 17:00.", "Oliver has piano lessons on Mondays, at 17:00.", ""},
	{"duplicate", "The VPN endpoint is vpn.lumen.io on port 1194.", "The VPN endpoint is \"vpn.lumen.io\" on port 1194.", ""},
	{"duplicate", "Head of design at Lumen is Kirsi Laine.", "The head of design at Lumen is Kirsi Laine.", ""},
	{"duplicate", "Build artifacts go to the artifacts-prod bucket", "Build artifacts go to the artifacts-prod bucket.", ""},
	{"duplicate", "Noor keeps an inhaler in her school bag.", "Noor keeps an Inhaler in her school bag.", ""},
	{"duplicate", "Report generation runs as a nightly cron job.", "The report generation runs as a nightly cron job.", ""},
	{"duplicate", "The parser library is BSD licensed.", "The parser library is BSD-licensed.", ""},
	{"duplicate", "The dentist appointment is on 12 April at 09:30.", "The dentist appointment is on 12 April, at 09:30.", ""},
	{"duplicate", "Wi-Fi password for the cabin is taped inside the fridge door.", "The Wi-Fi password for the cabin is taped inside the fridge door.", ""},
	{"duplicate", "Linnea's bike lock code is 3390.", "linnea's bike lock code is 3390.", ""},
	{"duplicate", "Grocery orders are delivered on Thursday mornings.", "Grocery orders are delivered on Thursday mornings!", ""},
	{"duplicate", "Emil reads e-mail only in the morning.", "Emil reads email only in the morning.", ""},
	{"duplicate", "Wi-Fi at the office is called Kontor5.", "WiFi at the office is called Kontor5.", ""},
	// Changed minds.
	{"update", "Priya prefers Vue over React for side projects.", "For side projects, Priya now prefers React over Vue.", ""},
	{"update", "Tobias prefers Ansible for server setup.", "Tobias now finds Ansible too slow and prefers Salt for server setup.", ""},
	{"update", "Kwame likes pytest fixtures for test setup.", "Kwame has gone off pytest fixtures and now prefers plain factory functions.", ""},
	{"update", "Leila prefers green tea.", "Leila now prefers black tea.", ""},
	{"update", "Nils thinks Kubernetes is a good fit for the home lab.", "Nils now thinks Kubernetes is overkill for the home lab.", ""},
	{"update", "Carla prefers VS Code for Python work.", "Carla now prefers PyCharm over VS Code for Python work.", ""},
	{"update", "Ruth prefers driving to Oslo.", "Ruth now prefers taking the night train to Oslo rather than driving.", ""},
	{"update", "Ahmed wants detailed release notes from the team.", "Ahmed now wants one-line release notes from the team.", ""},
	{"update", "Ben thinks Trello works well for the household.", "Ben has come to find Trello too cluttered and would rather use a paper list.", ""},
	{"update", "Sofia prefers swimming in the evening.", "Sofia now prefers swimming at lunchtime.", ""},
	{"update", "Felix prefers a monorepo for shared libraries.", "Felix now prefers separate repositories over a monorepo for shared libraries.", ""},
	{"update", "Anna wants a wood stove in the cabin.", "Anna now wants a heat pump in the cabin instead of a wood stove.", ""},
	{"update", "Olga loves spicy food.", "Olga no longer likes spicy food.", ""},
	{"update", "Ivan prefers window seats on night trains.", "Ivan prefers aisle seats on night trains.", ""},
	{"update", "Jonas enjoys crime podcasts.", "Jonas is tired of crime podcasts.", ""},
	{"update", "Mira prefers the gym in the evening.", "Mira now prefers the gym before work.", ""},
	{"update", "Per likes Python for data work.", "Per has switched to Julia for data work.", ""},
	{"update", "Elif likes Zoom for client calls.", "Elif now prefers Teams for client calls.", ""},
	// Restated opinions.
	{"restate", "Priya prefers Svelte over Angular for dashboards.", "For dashboards, Priya would rather use Svelte than Angular.", ""},
	{"restate", "Tobias thinks standups run too long.", "Tobias feels that standups run too long for what they are.", ""},
	{"restate", "Leila prefers strong tea without milk.", "Leila likes her tea strong, no milk.", ""},
	{"restate", "Nils finds Webpack overcomplicated.", "Nils thinks Webpack is too complicated.", ""},
	{"restate", "Carla prefers ferries over flights between the islands.", "Between the islands, Carla would rather take the ferry than fly.", ""},
	{"restate", "Ruth likes batch deletes.", "Ruth prefers batch-deleting old newsletters.", ""},
	{"restate", "Ahmed dislikes calls on Friday afternoons.", "Ahmed doesn't like having calls on Friday afternoons.", ""},
	{"restate", "Ben thinks Redis is the right default cache.", "Ben considers Redis the sensible default cache for most projects.", ""},
	{"restate", "Felix prefers GitLab over GitHub for private repositories.", "For private repositories, Felix favours GitLab over GitHub.", ""},
	{"restate", "Anna prefers hiking in the mountains.", "Anna would rather hike in the mountains.", ""},
	{"restate", "Ivan loves cold showers in the morning.", "Ivan really enjoys cold showers in the mornings.", ""},
	{"restate", "Maria prefers paper notebooks over apps for planning.", "For planning, Maria would rather use paper notebooks than apps.", ""},
	{"restate", "Ruth dislikes open-plan offices.", "Ruth is not a fan of open-plan offices.", ""},
	{"restate", "Mira enjoys audiobooks on long drives.", "On long drives, Mira likes listening to audiobooks.", ""},
	{"restate", "Per likes watching ski jumping.", "Per enjoys ski jumping.", ""},
	{"restate", "Jonas prefers tea over coffee in the morning.", "In the morning, Jonas would rather have tea than coffee.", ""},
	{"restate", "Mira thinks standing desks are worth it.", "Mira considers standing desks worth it.", ""},
	{"restate", "Per hates long meetings.", "Per really dislikes long meetings.", ""},
	{"restate", "Elif is a big fan of trail running.", "Elif loves trail running.", ""},
	{"restate", "Jonas likes his eggs soft-boiled.", "Jonas prefers soft-boiled eggs.", ""},
	{"restate", "Sofia enjoys Scandinavian crime novels.", "Sofia is a big fan of Scandinavian crime books.", ""},
	// A second batch, written after the rules above were changed: the same
	// kinds in other words again.
	{"distinct", "The lab freezer is set to -80 C.", "The lab freezer is set to -20 C.", ""},
	{"distinct", "Ola drives Kim to school on Mondays.", "Kim drives Ola to school on Mondays.", ""},
	{"distinct", "The API key rotates every 90 days.", "The API key rotates every 30 days.", ""},
	{"distinct", "Noah can swim.", "Noah cannot swim.", ""},
	{"distinct", "The meeting room on floor 3 seats twelve.", "The meeting room on floor 3 seats twenty.", ""},
	{"distinct", "The first-class lounge is on level 2.", "The business-class lounge is on level 2.", ""},
	{"distinct", "Emil's train leaves from platform 4.", "Emil's train arrives at platform 4.", ""},
	{"distinct", "Klara is Jonas's stepmother.", "Klara is Jonas's stepdaughter.", ""},
	{"distinct", "The old router is upstairs.", "The old router is downstairs.", ""},
	{"distinct", "The cat's vet is Dr. Holm.", "The dog's vet is Dr. Holm.", ""},
	{"distinct", "Sara booked the hotel in Rome.", "Sara cancelled the hotel in Rome.", ""},
	{"distinct", "The heating turns on at 06:00.", "The heating turns off at 06:00.", ""},
	{"distinct", "Emil has two cats.", "Emil has two dogs.", ""},
	{"distinct", "The invoice was paid on time.", "The invoice was never paid.", ""},
	{"duplicate", "The lab freezer is set to -80 C.", "The lab freezer is set to -80 C", ""},
	{"duplicate", "Sara's passport expires in 2031.", "Sara's Passport expires in 2031.", ""},
	{"duplicate", "The shared calendar is called Family.", "The shared calendar is called \"Family\".", ""},
	{"duplicate", "Klara works at the city library.", "Klara works at the City Library.", ""},
	{"duplicate", "An SSD is in the spare laptop.", "The SSD is in the spare laptop.", ""},
	{"duplicate", "Ola is on-call this week.", "Ola is on call this week.", ""},
	{"duplicate", "The kids' dentist is in Solna.", "The kids dentist is in Solna.", ""},
	{"duplicate", "Build times doubled after the upgrade.", "Build times doubled after the upgrade…", ""},
	{"update", "Jonas prefers tea in the morning.", "Jonas now prefers coffee in the morning.", ""},
	{"update", "Mira thinks standups are useful.", "Mira now thinks standups are a waste of time.", ""},
	{"update", "Elif prefers aisle seats.", "Elif prefers window seats.", ""},
	{"update", "Aron loves running marathons.", "Aron no longer enjoys running marathons.", ""},
	{"update", "Jonas wants a big wedding.", "Jonas now wants a small wedding.", ""},
	{"update", "Mira prefers Android phones.", "Mira now prefers iPhones over Android phones.", ""},
	{"update", "Per thinks remote work is good for the team.", "Per now thinks remote work is bad for the team.", ""},
	{"update", "Aron prefers paper maps when hiking.", "Aron has started using GPS apps instead of paper maps when hiking.", ""},
	{"restate", "Mira doesn't like cilantro.", "Mira dislikes cilantro.", ""},
	{"restate", "Per is a big fan of trail running.", "Per loves trail running.", ""},
	{"restate", "Elif thinks TDD slows the team down.", "Elif feels that TDD slows the team down.", ""},
	{"restate", "Aron prefers SSH keys over passwords for servers.", "For servers, Aron favors SSH keys over passwords.", ""},
	{"restate", "Jonas finds YAML configs overcomplicated.", "Jonas thinks YAML configs are too complicated.", ""},
	{"restate", "Elif prefers window seats on planes.", "On planes, Elif would rather sit by the window.",
		"the seat said as the act of sitting by the window: no word agrees but planes"},
	{"restate", "Aron dislikes working late on Fridays.", "Aron doesn't like to work late on Fridays.", ""},
	{"restate", "Jonas thinks pineapple on pizza is wrong.", "Jonas thinks pineapple does not belong on pizza.",
		"'is wrong' said as 'does not belong': another predicate"},
	{"restate", "Mira prefers early flights.", "Mira likes to fly early.", ""},
	{"restate", "Per prefers cash over card at markets.", "At markets, Per would rather pay cash than card.", ""},
	{"restate", "Elif likes spicy ramen.", "Elif is a fan of spicy ramen.", ""},
	{"restate", "Aron thinks Rust is a great fit for CLI tools.", "Aron considers Rust a good fit for CLI tools.", ""},
}

// storePair is one store pair of the evaluation's shape.
type storePair struct {
	expect        string // "distinct", "duplicate", "update", "restate" or "aspect" (an opinion on another aspect)
	first, second string
	miss          string // a known miss: why the store gets it wrong
}

// The held-out store pairs through a vault with each bundled model, the
// way an agent's memory_store calls reach it: every distinct fact stored,
// every duplicate refused, every changed mind a conflict, every
// restatement re-affirmed (but the known misses); and nothing folded that
// should stand (facts and updates lost 0), known miss or not.
func TestStorePairsHeldOut(t *testing.T) { checkStorePairs(t, storePairsHeldOut) }

func checkStorePairs(t *testing.T, pairs []storePair) {
	for _, open := range []func() (embed.Encoder, error){embed.OpenStatic, embed.OpenStaticV2} {
		enc, err := open()
		if err != nil {
			t.Fatal(err)
		}
		name := enc.Info().Name
		h := newHarness(t, enc)
		v := h.open("user")
		right, total, lost := map[string]int{}, map[string]int{}, 0
		for i, p := range pairs {
			kind := KindOpinion
			if p.expect == "distinct" || p.expect == "duplicate" {
				kind = KindFact
			}
			ns := fmt.Sprintf("pair-%02d", i)
			if r := h.store(v, StoreRequest{Text: p.first, Kind: kind, Namespace: ns}); !r.Stored {
				t.Fatalf("%s: %q: %+v", name, p.first, r)
			}
			got := outcome(h.store(v, StoreRequest{Text: p.second, Kind: kind, Namespace: ns}))
			total[p.expect]++
			if p.expect != "duplicate" && p.expect != "restate" && (got == "reaffirmed" || got == "duplicate") {
				lost++
			}
			good := map[string][]string{"distinct": {"stored"}, "duplicate": {"duplicate", "reaffirmed"},
				"update": {"conflict"}, "restate": {"reaffirmed", "duplicate"}, "aspect": {"stored"}}[p.expect]
			switch {
			case slices.Contains(good, got):
				right[p.expect]++
				if p.miss != "" {
					t.Logf("%s: the known miss %q now passes", name, p.second)
				}
			case p.miss != "":
				t.Logf("%s: known miss %q → %s (%s)", name, p.second, got, p.miss)
			default:
				t.Errorf("%s: %s %q then %q: %s, want %v", name, p.expect, p.first, p.second, got, good)
			}
		}
		t.Logf("%s: distinct %d/%d, duplicate %d/%d, update %d/%d, restate %d/%d, aspect %d/%d, lost %d", name,
			right["distinct"], total["distinct"], right["duplicate"], total["duplicate"],
			right["update"], total["update"], right["restate"], total["restate"], right["aspect"], total["aspect"], lost)
		if lost > 0 {
			t.Errorf("%s: %d memories that should stand were folded", name, lost)
		}
	}
}

// outcome names a store's answer as claims_eval.py does: a conflict first,
// then a re-affirmation, a duplicate, a new record.
func outcome(r StoreResult) string {
	switch {
	case len(r.Conflicts) > 0:
		return "conflict"
	case r.Reaffirmed:
		return "reaffirmed"
	case r.Duplicate:
		return "duplicate"
	case r.Stored:
		return "stored"
	}
	return "other"
}
