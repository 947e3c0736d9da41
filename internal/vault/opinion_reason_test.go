package vault

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// An opinion restated with a clause that says why it is held is the same
// opinion, whichever side carries the clause and at any cosine (the rule
// is literal: [givesReason]); a clause with a negation, a name, a number
// or a comparison, a context that narrows the object, a changed mind or a
// turned stance never is, even at cosine 1, with either calibration.
func TestGivesReasonTable(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			same bool
		}{
			{"Oona thinks microservices add too much overhead.", "Oona feels that microservices add too much overhead for what they give.", true},
			{"Lena prefers night trains.", "Lena prefers night trains because they are calm.", true},
			{"Marcus likes squash merges because they keep history tidy.", "Marcus likes squash merges.", true},
			{"Priya thinks Postgres is the right default.", "Priya considers Postgres the sensible default, given how little it costs to run.", true},
			{"Kofi dislikes early standups.", "Kofi doesn't like early standups because they break his focus.", true},
			{"Lena prefers oat milk in her coffee.", "Lena prefers oat milk in her coffee because it tastes softer.", true},
			{"Arjun prefers async updates over meetings.", "Arjun prefers async updates over meetings since they leave time to think.", true},
			{"Bruno likes Emacs as it stays out of the way.", "Bruno likes Emacs.", true},
			// Examples of the thing held.
			{"Farah loves Thai food.", "Farah loves Thai food, especially green curry.", true},
			{"Signe likes board games such as Catan and chess.", "Signe likes board games.", true},
			{"Lena likes podcasts.", "Lena likes podcasts, for example about history.", true},
			{"Farah loves Thai food, especially red curry.", "Farah loves Thai food, especially green curry.", false},
			{"Farah loves Thai food.", "Farah loves Thai food, especially not green curry.", false},
			{"Farah loves Thai food.", "Farah loves Thai food, except green curry.", false},
			{"Farah loves Thai food.", "Farah loves Thai food, but not green curry.", false},
			{"Farah loves Thai food.", "Farah loves Thai food, especially dishes under 10 euros.", false},
			{"Farah loves Thai food.", "Farah now loves Thai food, especially green curry.", false},
			{"Farah loves Thai food.", "Farah dislikes Thai food, especially green curry.", false},
			{"Farah loves Thai food.", "Farah loves Thai food, especially rather than Indian.", false},
			// A negation, a name, a number or a comparison in the clause.
			{"Lena prefers night trains.", "Lena prefers night trains because she doesn't like flying.", false},
			{"Lena prefers night trains.", "Lena prefers night trains because she hates airports.", false},
			{"Lena prefers night trains.", "Lena prefers night trains because flights are bad for sleep.", false},
			{"Marcus prefers Helix.", "Marcus prefers Helix because Zed is slow.", false},
			{"Lena prefers night trains.", "Lena prefers night trains because they cost 40 euros less.", false},
			{"Lena prefers night trains.", "Lena prefers night trains because they are calmer than flights.", false},
			{"Lena prefers night trains.", "Lena prefers night trains because they are calm rather than fast.", false},
			// A context that narrows what is held, not a reason.
			{"Marcus prefers Go.", "Marcus prefers Go for small services.", false},
			{"Lena prefers Zed.", "Lena prefers Zed as her editor.", false},
			{"Lena likes tea.", "Lena likes tea in the evening.", false},
			{"Lena likes tea.", "Lena likes tea since the move.", false},
			{"Lena likes tea.", "Lena likes tea since she moved.", false},
			{"Lena prefers Zed.", "Lena prefers Zed as her editor.", false},
			{"Arjun prefers async updates.", "Arjun prefers async updates since they don't need meetings.", false},
			// A changed mind, a turned stance, a changed object.
			{"Lena prefers night trains.", "Lena now prefers night trains because they are calm.", false},
			{"Lena likes night trains.", "Lena dislikes night trains because they are slow.", false},
			{"Hana likes workouts before breakfast.", "Hana likes workouts because they wake her up.", false},
			{"Lena prefers dark roast coffee.", "Lena prefers light roast coffee because it is milder.", false},
			// A clause too long to be only a reason.
			{"Lena prefers night trains.", "Lena prefers night trains because she can sleep the whole way and wake up rested in the city.", false},
		} {
			for _, cos := range []float64{-1, cal.SameTopic, 1} {
				if got := DecideOpinion(tc.a, tc.b, cos, cal); (got == OpinionSame) != tc.same {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want same=%v", name, tc.a, tc.b, cos, got, tc.same)
				}
			}
		}
	}
}

// propReasons are clauses of reason or worth with plain words only.
var propReasons = []string{"because it is calm", "because they save time", "for what they give", "for what it costs",
	"because it keeps things simple", "given how little it costs", "because she sleeps better"}

// propPoisons are what may never ride in on a reason: a negation, a name,
// a number, a comparison.
var propPoisons = []string{"not", "never", "Kotlin", "Berlin", "3", "2024", "more than flights", "rather than speed"}

// Any opinion with a reason clause added is re-affirmed, never a
// conflict; the same clause with a negation, a name, a number or a
// comparison in it is never folded, at any cosine and with either
// calibration.
func TestPropReasonClause(t *testing.T) { checkClauseProp(t, " ", propReasons, propPoisons) }

// propExamples are clauses that give examples of the thing held, a name
// among them; propExamplePoisons may never ride in on one: a negation, a
// number, a comparison, an exception.
var (
	propExamples = []string{"especially the ones from Kyoto", "such as the ones at the market", "including the old ones",
		"for example on trips", "in particular the strong ones", "notably on Sundays"}
	propExamplePoisons = []string{"not", "never", "3", "2024", "rather than speed", "except", "but"}
)

// Any opinion with a clause of examples added is re-affirmed, never a
// conflict; the same clause with a negation, a number, a comparison or an
// exception in it is never folded, at any cosine and with either
// calibration.
func TestPropExampleClause(t *testing.T) { checkClauseProp(t, ", ", propExamples, propExamplePoisons) }

// checkClauseProp draws an opinion and one of clauses, joined by sep: the
// opinion with the clause restates the one without, either way round;
// with one of poisons put into the clause, it is never folded.
func checkClauseProp(t *testing.T, sep string, clauses, poisons []string) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(propHolders).Draw(t, "holder")
		stance := rapid.SampledFrom(propStances).Draw(t, "stance")
		value := rapid.SampledFrom(propValues).Draw(t, "value")
		context := rapid.SampledFrom(append(propContexts, "")).Draw(t, "context")
		clause := rapid.SampledFrom(clauses).Draw(t, "clause")
		base := strings.TrimSpace(holder + " " + stance + " " + value + " " + context)
		with := base + sep + clause + "."
		words := strings.Fields(clause)
		at := rapid.IntRange(1, len(words)).Draw(t, "at")
		poison := rapid.SampledFrom(poisons).Draw(t, "poison")
		poisoned := base + sep + strings.Join(append(append(words[:at:at], poison), words[at:]...), " ") + "."
		cos := rapid.Float64Range(-1, 1).Draw(t, "cos")
		for name, cal := range cals {
			for _, c := range []float64{cos, 1} {
				for _, p := range [][2]string{{base + ".", with}, {with, base + "."}} {
					if got := DecideOpinion(p[0], p[1], c, cal); got != OpinionSame {
						t.Fatalf("%s: %q then %q at cos %.3f: %v, want same", name, p[0], p[1], c, got)
					}
				}
				if got := DecideOpinion(base+".", poisoned, c, cal); got == OpinionSame {
					t.Fatalf("%s: %q then %q at cos %.3f: folded", name, base+".", poisoned, c)
				}
			}
		}
	})
}
