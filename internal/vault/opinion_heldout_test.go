package vault

import (
	"fmt"
	"testing"

	"github.com/compartment/compartment/embed"
)

// heldOutPairs are store pairs of the evaluation's shapes written for
// #26 with people, topics and words the dev set does not use: restated
// opinions (several said with another word of general English: couch /
// sofa, payments / pay, cleanups / cleaning up), changed minds (an
// alternative swapped, a stance turned, "X over" the old object) and
// opinions of one holder on another aspect.
var heldOutPairs = []struct {
	expect        string // "restate", "update" or "distinct"
	first, second string
	miss          string // a known miss: why the store gets it wrong
}{
	// Restated, with a word said otherwise (the lexicon).
	{"restate", "Emeka prefers the couch over the desk for reading.", "For reading, Emeka would rather use the sofa than the desk.", ""},
	{"restate", "Solveig thinks vacations in June are ideal.", "Solveig considers holidays in June ideal.", ""},
	{"restate", "Rafael dislikes cleanups on Saturdays.", "Rafael doesn't like cleaning up on Saturdays.", ""},
	{"restate", "Oona likes backups before every trip.", "Oona prefers backing up before every trip.", ""},
	{"restate", "Hana thinks movies in the cinema are worth it.", "Hana thinks films in the cinema are worth it.", ""},
	{"restate", "Beatriz loves photographs of old harbours.", "Beatriz is a big fan of photos of old harbours.", ""},
	{"restate", "Solveig prefers payments by card.", "Solveig would rather pay by card.", ""},
	{"restate", "Rafael prefers a doctor close to home.", "Rafael prefers a physician close to home.", ""},
	{"restate", "Dmitri prefers checkouts without a cashier.", "Dmitri would rather check out without a cashier.", ""},
	{"restate", "Hana likes workouts before breakfast.", "Hana prefers working out before breakfast.", ""},
	{"restate", "Yusuf enjoys rehearsals with the choir.", "Yusuf likes rehearsing with the choir.", ""},
	{"restate", "Beatriz prefers migrations in small steps.", "Beatriz would rather migrate in small steps.", ""},
	{"restate", "Emeka prefers cancellation by email.", "Emeka would rather cancel by email.", ""},
	{"restate", "Solveig likes inspections before each release.", "Solveig prefers inspecting before each release.", ""},
	// Restated in the dev set's other shapes.
	{"restate", "Rafael prefers Elixir over Scala for new backends.", "For new backends, Rafael would rather use Elixir than Scala.", ""},
	{"restate", "Dmitri thinks Terraform is the right default for infrastructure.", "Dmitri considers Terraform the sensible default for infrastructure in most cases.", ""},
	{"restate", "Hana finds Jenkins overcomplicated.", "Hana thinks Jenkins is too complicated.", ""},
	{"restate", "Yusuf dislikes calls after dinner.", "Yusuf doesn't like having calls after dinner.", ""},
	{"restate", "Beatriz prefers plain yoghurt without sugar.", "Beatriz likes her yoghurt plain, no sugar.", ""},
	{"restate", "Emeka likes bulk imports.", "Emeka prefers bulk-importing contacts.", ""},
	{"restate", "Oona thinks microservices add too much overhead.", "Oona feels that microservices add too much overhead for what they give.", ""},
	{"restate", "Dmitri enjoys Korean drama series.", "Dmitri is a big fan of Korean drama shows.", ""},
	// Changed minds.
	{"update", "Rafael prefers Elixir over Scala for new backends.", "For new backends, Rafael now prefers Scala over Elixir.", ""},
	{"update", "Oona prefers aisle seats on ferries.", "Oona now prefers window seats on ferries.", ""},
	{"update", "Dmitri likes sailing in spring.", "Dmitri now prefers sailing in autumn.", ""},
	{"update", "Hana prefers tea in the afternoon.", "Hana now prefers cocoa in the afternoon.", ""},
	{"update", "Yusuf prefers tabs to keep diffs small.", "Yusuf now prefers spaces over tabs.", ""},
	{"update", "Beatriz prefers cycling to the office.", "Beatriz now prefers taking the tram to the office rather than cycling.", ""},
	{"update", "Emeka wants brief summaries from the assistant.", "Emeka now wants detailed summaries from the assistant.", ""},
	{"update", "Solveig thinks Confluence works fine for the team.", "Solveig has come to find Confluence too slow and would rather use Notion.", ""},
	{"update", "Rafael prefers holidays in July.", "Rafael now prefers holidays in December.", ""},
	{"update", "Dmitri prefers payments by card.", "Dmitri now prefers paying in cash.", ""},
	{"update", "Solveig likes film nights.", "Solveig doesn't like movie nights.", ""},
	{"update", "Oona prefers couches over armchairs.", "Oona now prefers armchairs over sofas.", ""},
	{"update", "Hana likes workouts before breakfast.", "Hana likes workouts after dinner.", ""},
	// One holder, another aspect.
	{"distinct", "Rafael prefers holidays in July.", "Rafael prefers rye bread for breakfast.", ""},
	{"distinct", "Hana likes workouts before breakfast.", "Hana likes jazz on Sunday evenings.", ""},
	{"distinct", "Emeka prefers payments by card.", "Emeka prefers a desk by the window.", ""},
}

// The held-out pairs through a vault with each bundled model: every
// restatement re-affirmed (but the known misses), every changed mind a
// conflict, every other aspect stored; and nothing folded that should
// stand (facts and updates lost 0).
func TestStoreHeldOutOpinionPairs(t *testing.T) {
	for _, open := range []func() (embed.Encoder, error){embed.OpenStatic, embed.OpenStaticV2} {
		enc, err := open()
		if err != nil {
			t.Fatal(err)
		}
		name := enc.Info().Name
		h := newHarness(t, enc)
		v := h.open("user")
		right, lost := map[string]int{}, 0
		total := map[string]int{}
		for i, p := range heldOutPairs {
			ns := fmt.Sprintf("held-%02d", i)
			if r := h.store(v, StoreRequest{Text: p.first, Kind: KindOpinion, Namespace: ns}); !r.Stored {
				t.Fatalf("%s: %q: %+v", name, p.first, r)
			}
			r := h.store(v, StoreRequest{Text: p.second, Kind: KindOpinion, Namespace: ns})
			got := "stored"
			switch {
			case len(r.Conflicts) > 0:
				got = "conflict"
			case r.Reaffirmed:
				got = "reaffirmed"
			case r.Duplicate:
				got = "duplicate"
			}
			want := map[string]string{"restate": "reaffirmed", "update": "conflict", "distinct": "stored"}[p.expect]
			total[p.expect]++
			if p.expect != "restate" && (got == "reaffirmed" || got == "duplicate") {
				lost++
			}
			switch {
			case got == want:
				right[p.expect]++
				if p.miss != "" {
					t.Logf("%s: the known miss %q now passes", name, p.second)
				}
			case p.miss != "":
				t.Logf("%s: known miss %q → %s (%s)", name, p.second, got, p.miss)
			default:
				t.Errorf("%s: %s %q then %q: %s, want %s", name, p.expect, p.first, p.second, got, want)
			}
		}
		t.Logf("%s: restated re-affirmed %d/%d, changed minds conflicts %d/%d, other aspects stored %d/%d, lost %d",
			name, right["restate"], total["restate"], right["update"], total["update"], right["distinct"], total["distinct"], lost)
		if lost > 0 {
			t.Errorf("%s: %d opinions that should stand were folded", name, lost)
		}
	}
}
