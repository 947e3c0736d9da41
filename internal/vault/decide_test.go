package vault

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/rank"
	"pgregory.net/rapid"
)

// Both calibrations the product ships with: bge-small's (the spec's
// constants) and the bundled static model's (fitted from WordNet).
func calibrations(t testing.TB) map[string]rank.Calibration {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]rank.Calibration{
		"bge-small": RankCalibration(embed.SpecCalibration),
		"static":    RankCalibration(enc.Info().Calibration),
	}
}

func TestDuplicateNeedsLiteralAgreement(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			dup  bool
		}{
			{"The staging Postgres runs on port 5433 on db-stage-2.", "the staging Postgres runs on port 5433 on db-stage-2", true},
			{"CTO of Kassa is Aino Virtanen.", "The CTO of Kassa is Aino Virtanen.", true},
			{"tidvis is MIT licensed.", "Tidvis is MIT-licensed.", true},
			{"Saga carries an EpiPen to practice.", "Saga carries an epipen to practices.", true},
			{"On Tuesdays, practice is at 17:30.", "Practice is at 17:30 on Tuesdays.", true},
			{"The door code is 4512.", "The door code is 4513.", false},
			{"The goal is under 3:10.", "The goal is under 3:01.", false},
			{"Elin is allergic to shellfish.", "Elin is not allergic to shellfish.", false},
			{"Elin isn't allergic to shellfish.", "Elin is allergic to shellfish.", false},
			{"Oskar reports to Mia.", "Mia reports to Oskar.", false},
			{"The freeze starts on 2025-12-19.", "The freeze ends on 2025-12-19.", false},
			{"Commit a71d09b fixed the bug.", "Commit a71d09c fixed the bug.", false},
			{"Henrik is the younger brother.", "Henrik is the older brother.", false},
		} {
			// Cosine 1: the model could not tell them apart at all.
			if got := IsDuplicate(tc.a, tc.b, 1, cal); got != tc.dup {
				t.Errorf("%s: IsDuplicate(%q, %q) = %v, want %v", name, tc.a, tc.b, got, tc.dup)
			}
			if IsDuplicate(tc.a, tc.b, cal.SameMeaning-0.01, cal) {
				t.Errorf("%s: folded %q below same_meaning", name, tc.b)
			}
		}
	}
}

func TestDecideOpinion(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			want OpinionVerdict
		}{
			{"I prefer tabs over spaces for Go code.", "For Go code I prefer spaces, not tabs.", OpinionConflict},
			{"I prefer tabs over spaces.", "I prefer spaces over tabs.", OpinionConflict},
			{"Marcus prefers dark roast coffee.", "Marcus now prefers light roast coffee.", OpinionConflict},
			{"Marcus likes Jira.", "Marcus dislikes Jira.", OpinionConflict},
			{"Marcus prefers Neovim for Kotlin work.", "Marcus prefers IntelliJ over Neovim for Kotlin work.", OpinionConflict},
			{"Marcus prefers REST over GraphQL for public APIs.", "For public APIs, Marcus favours REST over GraphQL.", OpinionSame},
			{"Marcus dislikes meetings in the morning.", "Marcus doesn't like having meetings in the mornings.", OpinionSame},
			{"Marcus finds Helm charts overcomplicated.", "Marcus thinks Helm charts are too complicated.", OpinionSame},
			{"Marcus thinks ORMs hide too much.", "Marcus feels that ORMs hide too much of what is going on.", OpinionSame},
			{"Marcus prefers flying to Gothenburg.", "Marcus now prefers taking the train to Gothenburg rather than flying.", OpinionConflict},
			{"Marcus thinks ORMs hide too much.", "Marcus thinks ORMs hide too much of the SQL.", OpinionConflict},
			// One holder, other aspects: the walk.
			{"Lena prefers oat milk in her coffee.", "Lena likes sparkling water with lunch.", OpinionUnrelated},
			{"Lena prefers Zed as her editor.", "Lena prefers code reviews before noon.", OpinionUnrelated},
			{"Lena thinks a monorepo is the right choice for the team.", "Lena prefers code reviews before noon.", OpinionUnrelated},
			{"Lena thinks a monorepo is the right choice for the team.", "Lena likes tea.", OpinionUnrelated},
			{"Lena prefers Zed as her editor.", "Lena prefers Helix as her editor.", OpinionConflict},
			{"Lena prefers tabs for Go code.", "Lena prefers code reviews before noon.", OpinionUnrelated},
			// Another holder, the same aspect.
			{"Marcus prefers dark roast coffee.", "Priya prefers dark roast coffee.", OpinionUnrelated},
			{"I prefer tabs.", "The user prefers tabs.", OpinionSame},
			{"Marcus prefers black coffee without sugar.", "Marcus likes his coffee black, no sugar.", OpinionSame},
			{"Marcus thinks Postgres is the right default database.", "Marcus thinks Postgres is the wrong default database.", OpinionConflict},
			{"Marcus prefers tests before deploys.", "Marcus prefers deploys before tests.", OpinionConflict},
			{"Marcus prefers Oskar over Mia for reviews.", "Marcus prefers Mia over Oskar for reviews.", OpinionConflict},
			{"Lena likes tea.", "Lena no longer likes tea.", OpinionConflict},
			{"Marcus prefers milk chocolate.", "Marcus prefers chocolate milk.", OpinionUnrelated}, // two things: both stand
			{"Lena dislikes tea.", "Lena no longer likes tea.", OpinionSame},
			// A noun said as a gerund with its object ([complements]).
			{"Ines likes batch deploys.", "Ines prefers batch-deploying services.", OpinionSame},
			{"Ines likes batch deploys on Fridays.", "Ines prefers batch-deploying small services on Fridays.", OpinionSame},
			{"Ines likes batch deploys.", "Ines now prefers batch-deploying services.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying services these days.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying at night.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying 3 services.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying Kafka consumers.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines doesn't like batch-deploying services.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying services less.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying services over containers.", OpinionConflict},
			{"Ines likes batch deploys.", "Ines prefers batch-deploying services instead.", OpinionConflict},
			{"Ines likes batch deploying.", "Ines prefers batch deploys of services.", OpinionConflict},
			// The plural of a three-letter noun ([sameOpinionWord]).
			{"Ines prefers buses over taxis within the city.", "Within the city, Ines would rather take the bus than a taxi.", OpinionSame},
			{"Ines likes news podcasts.", "Ines likes new podcasts.", OpinionConflict},
			{"Ines prefers buses over cars.", "Ines prefers cars over buses.", OpinionConflict},
			// A word said otherwise by the lexicon ([sayOtherwise]), and
			// what it never lets through: an alternative, a changed mind,
			// a name, a number, a negation.
			{"Emeka prefers the couch over the desk for reading.", "For reading, Emeka would rather use the sofa than the desk.", OpinionSame},
			{"Solveig prefers payments by card.", "Solveig would rather pay by card.", OpinionSame},
			{"Rafael dislikes cleanups on Saturdays.", "Rafael doesn't like cleaning up on Saturdays.", OpinionSame},
			{"Emeka prefers the couch over the desk for reading.", "Emeka now prefers the sofa over the desk for reading.", OpinionConflict},
			{"Solveig prefers payments by card.", "Solveig prefers paying by card instead.", OpinionConflict},
			{"Solveig prefers payments by card.", "Solveig doesn't like paying by card.", OpinionConflict},
			{"Solveig prefers payments by Visa.", "Solveig would rather pay by Amex.", OpinionConflict},
			{"Solveig prefers 2 payments by card.", "Solveig would rather pay 3 times by card.", OpinionConflict},
			{"Hana prefers tea in the afternoon.", "Hana prefers coffee in the afternoon.", OpinionConflict},
			{"Hana prefers swimming in the morning.", "Hana prefers swimming in the evening.", OpinionConflict},
			// "X over Y" where Y is what the old opinion holds ([overturns]).
			{"Kofi prefers rebasing to keep history linear.", "Kofi now prefers merge commits over rebasing.", OpinionConflict},
			{"Yusuf prefers tabs to keep diffs small.", "Yusuf prefers spaces over tabs.", OpinionConflict},
			{"Yusuf prefers tabs to keep diffs small.", "Yusuf prefers tabs over spaces to keep diffs small.", OpinionConflict},
			// The time words of a changed mind say nothing about the aspect.
			{"Ines likes green tea.", "Ines likes green tea these days.", OpinionSame},
			{"Ines likes green tea.", "Nowadays Ines likes green tea.", OpinionSame},
		} {
			if got := DecideOpinion(tc.a, tc.b, 1, cal); got != tc.want {
				t.Errorf("%s: DecideOpinion(%q, %q) = %v, want %v", name, tc.a, tc.b, got, tc.want)
			}
		}
		if got := DecideOpinion("Marcus likes green tea.", "Marcus dislikes green tea.", cal.SameTopic-0.01, cal); got != OpinionUnrelated {
			t.Errorf("%s: below same_topic: %v, want unrelated", name, got)
		}
		// Objects that agree word for word are one opinion whatever the
		// cosine (the bundled model gives the first pair 0.19); any other
		// difference still needs the model.
		belowFloor := []float64{-1, 0, cal.CosFloor - 0.01}
		wantAtCosines(t, name, cal, belowFloor, OpinionSame, "", [][2]string{
			{"Nadia finds Kubernetes overcomplicated.", "Nadia thinks Kubernetes is too complicated."},
			{"Kofi dislikes calls in the evening.", "Kofi doesn't like having calls in the evenings."},
			// a noun said as a gerund with its object ([complements])
			{"Tomas likes batch exports.", "Tomas prefers batch-exporting invoices."},
			// a word said otherwise by the lexicon ([sayOtherwise])
			{"Marcus prefers trains over flights within Scandinavia.", "Within Scandinavia, Marcus would rather take the train than fly."},
			{"Oona likes backups before every trip.", "Oona prefers backing up before every trip."},
		})
		wantAtCosines(t, name, cal, belowFloor, OpinionUnrelated, " (the model must say same topic)", [][2]string{
			{"Nadia finds Kubernetes overcomplicated.", "Nadia finds Kubernetes not overcomplicated."},
			{"Kofi dislikes calls in the evening.", "Kofi dislikes calls in the morning."},
			{"Tomas likes batch exports.", "Tomas prefers batch-exporting at night."},
		})
		// A comparison against what the old opinion holds is a changed
		// mind whatever the cosine ([overturns]); the bundled model puts
		// the first pair apart.
		wantAtCosines(t, name, cal, belowFloor, OpinionConflict, "", [][2]string{
			{"Kofi prefers rebasing to keep history linear.", "Kofi now prefers merge commits over rebasing."},
			{"Beatriz prefers cycling to the office.", "Beatriz now prefers taking the tram to the office rather than cycling."},
		})
		// A shared name needs only the model's floor.
		jira, jiraToo := "Marcus likes Jira for planning.", "Marcus thinks Jira is too heavy for the team."
		if got := DecideOpinion(jira, jiraToo, cal.CosFloor, cal); got != OpinionConflict {
			t.Errorf("%s: a shared name at cos_floor: %v, want conflict", name, got)
		}
		if got := DecideOpinion(jira, jiraToo, cal.CosFloor-0.01, cal); got != OpinionUnrelated {
			t.Errorf("%s: a shared name below cos_floor: %v, want unrelated", name, got)
		}
		// A new text that says the mind changed about the first thing
		// the old one holds is a conflict at any cosine ([reopens]);
		// sharing only the context, or saying nothing changed, leaves it
		// to the model.
		wantAtCosines(t, name, cal, belowFloor, OpinionConflict, " (the mind changed about what it holds)", [][2]string{
			{jira, "Marcus has grown tired of Jira and would rather use Linear."},
			{"Kwame likes pytest fixtures for test setup.", "Kwame has gone off pytest fixtures and now prefers plain factory functions."},
			{"Ben thinks Trello works well for the household.", "Ben has come to find Trello too cluttered and would rather use a paper list."},
			{"Olga loves spicy food.", "Olga no longer likes spicy food at dinner."},
		})
		wantAtCosines(t, name, cal, belowFloor, OpinionUnrelated, " (only the context is shared, or nothing says a change)", [][2]string{
			{"Ivan prefers running in the morning.", "Ivan now prefers tea in the morning."},
			{"Kwame likes pytest fixtures for test setup.", "Kwame thinks pytest fixtures hide too much of the setup."},
			{"Hana likes workouts before breakfast.", "Hana nowadays likes jazz before breakfast."},
		})
	}
}

// wantAtCosines reports each pair whose verdict under cal (named name) is
// not want at one of cosines; why is added to the message.
func wantAtCosines(t *testing.T, name string, cal rank.Calibration, cosines []float64, want OpinionVerdict, why string, pairs [][2]string) {
	t.Helper()
	for _, c := range cosines {
		for _, p := range pairs {
			if got := DecideOpinion(p[0], p[1], c, cal); got != want {
				t.Errorf("%s: %q then %q at cos %.2f: %v, want %v%s", name, p[0], p[1], c, got, want, why)
			}
		}
	}
}

// A near miss is a claim and the same claim with one thing changed that
// changes what it says. None may ever be folded, as a fact or as an
// opinion, whatever the cosine and whichever model's calibration.
func TestNearMissesNeverFolded(t *testing.T) {
	cals := calibrations(t)
	names := []string{"Oskar", "Mia", "Elin", "Saga", "Johan", "Daniel", "Aino", "Henrik"}
	nouns := []string{"database", "cat", "team", "service", "bill", "door", "kitchen", "train"}
	verbs := []string{"reviews", "manages", "pays", "follows", "calls", "feeds", "trusts"}
	rapid.Check(t, func(t *rapid.T) {
		subj := rapid.SampledFrom(append(names, nouns...)).Draw(t, "subject")
		obj := rapid.SampledFrom(append(names, nouns...)).Filter(func(s string) bool { return s != subj }).Draw(t, "object")
		verb := rapid.SampledFrom(verbs).Draw(t, "verb")
		num := rapid.IntRange(0, 99999).Draw(t, "number")
		base := []string{subj, verb, "the", obj, "at", strconv.Itoa(num)}
		var miss []string
		switch rapid.IntRange(0, 6).Draw(t, "change") {
		case 0: // a changed digit
			d := rapid.IntRange(0, len(strconv.Itoa(num))-1).Draw(t, "digit")
			s := []byte(strconv.Itoa(num))
			s[d] = '0' + (s[d]-'0'+byte(rapid.IntRange(1, 9).Draw(t, "by")))%10
			miss = []string{subj, verb, "the", obj, "at", string(s)}
		case 1: // an added negation
			neg := rapid.SampledFrom([]string{"not", "never", "no longer"}).Draw(t, "negation")
			miss = []string{subj, "does", neg, strings.TrimSuffix(verb, "s"), "the", obj, "at", strconv.Itoa(num)}
			base = []string{subj, "does", strings.TrimSuffix(verb, "s"), "the", obj, "at", strconv.Itoa(num)}
		case 2: // subject and object swapped
			miss = []string{obj, verb, "the", subj, "at", strconv.Itoa(num)}
		case 3: // a name changed
			other := rapid.SampledFrom(names).Filter(func(s string) bool { return s != subj && s != obj }).Draw(t, "name")
			miss = []string{other, verb, "the", obj, "at", strconv.Itoa(num)}
		case 4: // a number added
			miss = append(append([]string{}, base...), "and", strconv.Itoa(num+1))
		case 5: // a thing added, with or without a preposition ("over IntelliJ")
			add := []string{rapid.SampledFrom(append(names, nouns...)).Draw(t, "added")}
			if rapid.Bool().Draw(t, "with preposition") {
				add = append([]string{rapid.SampledFrom([]string{"over", "than", "for", "with", "of", "to"}).Draw(t, "preposition")}, add...)
			}
			at := rapid.IntRange(0, len(base)).Draw(t, "at")
			miss = append(append(append([]string{}, base[:at]...), add...), base[at:]...)
		case 6: // a word replaced by another of its kind
			repl := rapid.SampledFrom(verbs).Filter(func(s string) bool { return s != verb }).Draw(t, "other verb")
			miss = []string{subj, repl, "the", obj, "at", strconv.Itoa(num)}
		}
		a, b := strings.Join(base, " ")+".", strings.Join(miss, " ")+"."
		if rapid.Bool().Draw(t, "swap") {
			a, b = b, a
		}
		for name, cal := range cals {
			if IsDuplicate(a, b, 1, cal) {
				t.Fatalf("%s: %q folded into %q as a duplicate", name, b, a)
			}
			if DecideOpinion(a, b, 1, cal) == OpinionSame {
				t.Fatalf("%s: opinion %q folded into %q as a restatement", name, b, a)
			}
		}
	})
}

// The cases through a real vault with the bundled model: numbers
// one digit apart are two facts, and a changed opinion is a conflict.
func TestStoreKeepsNearMissesWithTheBundledModel(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, enc)
	v := h.open("user")
	first := h.store(v, StoreRequest{Text: "The door code is 4512."})
	second := h.store(v, StoreRequest{Text: "The door code is 4513."})
	if !second.Stored || second.ID == first.ID {
		t.Fatalf("4513 after 4512: %+v, want a new memory", second)
	}
	if dup := h.store(v, StoreRequest{Text: "the door code is 4513"}); !dup.Duplicate || dup.ID != second.ID {
		t.Fatalf("a restatement of 4513: %+v, want the duplicate %s", dup, second.ID)
	}
	for i := range 40 {
		res := h.store(v, StoreRequest{Text: "Agent 2 observed event number " + strconv.Itoa(i) + " at the depot.", Namespace: "depot"})
		if !res.Stored {
			t.Fatalf("event %d: %+v, want stored", i, res)
		}
	}
	old := h.store(v, StoreRequest{Text: "I prefer tabs over spaces for Go code", Kind: KindOpinion, Namespace: "prefs"})
	res := h.store(v, StoreRequest{Text: "For Go code I prefer spaces, not tabs", Kind: KindOpinion, Namespace: "prefs"})
	if res.Reaffirmed || len(res.Conflicts) != 1 || res.Conflicts[0].ID != old.ID {
		t.Fatalf("changed opinion: %+v, want a conflict with %s", res, old.ID)
	}
}

func TestIDPrefixes(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	old := h.store(v, StoreRequest{Text: "Marcus prefers dark roast coffee.", Kind: KindOpinion})
	_, err := v.Get(old.ID[:4])
	if !errors.Is(err, ErrTooShort) || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("4-character prefix: %v, want too short", err)
	}
	if _, err := v.Get("ffffffffffff"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown prefix: %v, want not found", err)
	}
	res := h.store(v, StoreRequest{Text: "Marcus prefers light roast coffee.", Kind: KindOpinion, Supersedes: []string{old.ID[:8]}})
	if !res.Stored || len(res.Superseded) != 1 || res.Superseded[0] != old.ID {
		t.Fatalf("supersedes by prefix: %+v, want %s superseded", res, old.ID)
	}
	got, err := v.Get(old.ID[:8])
	if err != nil || got.SupersededBy != res.ID {
		t.Fatalf("old record after supersede: %+v, %v; want superseded by %s", got, err, res.ID)
	}
	if _, err := v.Store(StoreRequest{Text: "Marcus prefers tea.", Source: "chat", Kind: KindOpinion, Supersedes: []string{res.ID[:3]}}); !errors.Is(err, ErrTooShort) {
		t.Fatalf("supersedes with a 3-character prefix: %v, want too short", err)
	}
}

type uncalibratedEncoder struct{ bowEncoder }

func (uncalibratedEncoder) Info() embed.ModelInfo {
	return embed.ModelInfo{Name: "test-uncalibrated", SHA256: [32]byte{9}, Dim: bowDim, MaxTokens: 512}
}

// A vault refuses a model without a calibration, naming it.
func TestVaultRefusesUncalibratedModel(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	h.enc = uncalibratedEncoder{}
	_, err := Open(h.path, h.opts("user"))
	if !errors.Is(err, embed.ErrUncalibrated) || !strings.Contains(err.Error(), "test-uncalibrated") {
		t.Fatalf("open with an uncalibrated model: %v", err)
	}
}
