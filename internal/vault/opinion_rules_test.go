package vault

import (
	"strings"
	"testing"
)

// A phrase fronted by any everyday preposition or time conjunction,
// closed by a comma, moves to the end ([frontedLast]); a phrase that is
// not fronted, or a comma that continues the clause, stays.
func TestFrontedLastPrepositions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Between the islands, Carla would rather take the ferry.", "Carla would rather take the ferry Between the islands"},
		{"Around the house, Noor prefers slippers.", "Noor prefers slippers Around the house"},
		{"From Monday, the gym opens at 06:00.", "the gym opens at 06:00 From Monday"},
		{"To the airport, Ivan takes the bus.", "Ivan takes the bus To the airport"},
		{"Throughout winter, Anna likes sauna evenings.", "Anna likes sauna evenings Throughout winter"},
		{"Until March, the office is closed on Fridays.", "the office is closed on Fridays Until March"},
		{"While travelling, Ruth prefers audiobooks.", "Ruth prefers audiobooks While travelling"},
		// not fronted: the first word is no preposition, or the comma
		// continues the clause
		{"Ruth prefers audiobooks, while travelling.", "Ruth prefers audiobooks, while travelling."},
		{"Carla, from the islands, likes ferries.", "Carla, from the islands, likes ferries."},
		{"Under the desk, not on it, is the router.", "Under the desk, not on it, is the router."},
	} {
		if got := frontedLast(tc.in); got != tc.want {
			t.Errorf("frontedLast(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			dup  bool
		}{
			{"Between releases, the cache is flushed.", "The cache is flushed between releases.", true},
			{"From Monday, the gym opens at 06:00.", "The gym opens at 06:00 from Monday.", true},
			{"From Monday, the gym opens at 06:00.", "From Monday, the gym opens at 07:00.", false},
			{"From Oslo, the train goes to Bergen.", "From Bergen, the train goes to Oslo.", false},
			{"Until March, the office is closed on Fridays.", "Until March, the office is not closed on Fridays.", false},
		} {
			if got := IsDuplicate(tc.a, tc.b, 1, cal); got != tc.dup {
				t.Errorf("%s: IsDuplicate(%q, %q) = %v, want %v", name, tc.a, tc.b, got, tc.dup)
			}
		}
	}
}

// sameOpinionWord pairs a four-letter verb that drops its e with its
// gerund (the literal channel's prefix is four letters, which such a
// gerund does not keep), and nothing else of that length.
func TestSameOpinionWordShortGerunds(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"hike", "hiking", true}, {"hiking", "hike", true}, {"bake", "baking", true}, {"code", "coding", true},
		{"bike", "biking", true}, {"vote", "voting", true}, {"dine", "dining", true},
		{"skate", "skating", true}, {"bus", "buses", true},
		{"bike", "baking", false}, {"code", "coating", false}, {"free", "freing", false},
		{"hike", "hikking", false}, {"line", "lion", false}, {"new", "news", false}, {"tea", "team", false},
	} {
		if got := sameOpinionWord(tc.a, tc.b); got != tc.want {
			t.Errorf("sameOpinionWord(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// A closing hedge on the scope ("for most projects", "in most teams")
// that only one opinion adds leaves the opinion as it was, whatever the
// cosine; two different hedges, a hedge that names or counts, or a limit
// ("at most five") are left to the model and never re-affirmed on the
// words alone.
func TestClosingHedgeAdded(t *testing.T) {
	for name, cal := range calibrations(t) {
		belowFloor := []float64{-1, 0, cal.CosFloor - 0.01}
		wantAtCosines(t, name, cal, belowFloor, OpinionSame, " (a hedge added)", [][2]string{
			{"Ben thinks Redis is the right default cache.", "Ben considers Redis the sensible default cache for most projects."},
			{"Noor prefers trains for long trips in most seasons.", "Noor prefers trains for long trips."},
			{"Ivan thinks code review slows down small teams.", "Ivan thinks code review slows down small teams in most companies."},
		})
		for _, p := range [][2]string{
			{"Ben thinks Redis is the right default cache for most projects.", "Ben thinks Redis is the right default cache for most teams."},
			{"Ben prefers small teams.", "Ben prefers small teams of at most five."},
			{"Ben prefers Redis for caching.", "Ben prefers Redis for most caching."},
			{"Ben thinks Redis is the right default cache.", "Ben thinks Redis is the right default cache for most Kotlin."},
			{"Ben thinks Redis is the right default cache.", "Ben thinks Redis is the right default cache in most 2026."},
			{"Ben thinks Redis is the right default cache.", "Ben thinks Redis is not the right default cache for most projects."},
		} {
			for _, c := range belowFloor {
				if got := DecideOpinion(p[0], p[1], c, cal); got == OpinionSame {
					t.Errorf("%s: %q then %q at cos %.2f: same, want the model to decide", name, p[0], p[1], c)
				}
			}
			if got := DecideOpinion(p[0], p[1], 1, cal); got == OpinionSame {
				t.Errorf("%s: %q then %q at cos 1: re-affirmed", name, p[0], p[1])
			}
		}
	}
}

// A compound written with a hyphen is the closed word ([wordsAgree]);
// two words written apart, a number, or a prefix whose hyphen tells two
// words apart are not.
func TestDuplicateHyphenCompounds(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			dup  bool
		}{
			{"Emil reads e-mail only in the morning.", "Emil reads email only in the morning.", true},
			{"WiFi at the office is called Kontor5.", "Wi-Fi at the office is called Kontor5.", true},
			{"Ola is on-call this week.", "Ola is oncall this week.", true},
			{"Ola is on-call this week.", "Ola is on call this week.", true},
			{"Ola gets paid for overtime.", "Ola gets paid for over time.", false},
			{"Ola can pay anyway.", "Ola can pay any way.", false},
			{"Ola will re-sign the contract.", "Ola will resign the contract.", false},
			{"The chickens live in the co-op.", "The chickens live in the coop.", false},
			{"The gate code is 4-12.", "The gate code is 412.", false},
			{"Emil reads e-mail only in the morning.", "Emil reads email only in the evening.", false},
			{"Emil reads e-mail only in the morning.", "Emil never reads email in the morning.", false},
		} {
			if got := IsDuplicate(tc.a, tc.b, 1, cal); got != tc.dup {
				t.Errorf("%s: IsDuplicate(%q, %q) = %v, want %v", name, tc.a, tc.b, got, tc.dup)
			}
			if got := IsDuplicate(tc.b, tc.a, 1, cal); got != tc.dup {
				t.Errorf("%s: IsDuplicate(%q, %q) = %v, want %v", name, tc.b, tc.a, got, tc.dup)
			}
		}
	}
}

// A weary word before "of" or "with", or "fed up with", holds an opinion
// against its object as "dislikes" does: the holder is the words before
// it, and the object carries a "not".
func TestWearyStance(t *testing.T) {
	for _, tc := range []struct{ text, holder, object string }{
		{"Jonas is tired of crime podcasts.", "jonas", "not of crime podcasts"},
		{"Jonas is sick of open offices.", "jonas", "not of open offices"},
		{"Mira is bored with standups.", "mira", "not with standups"},
		{"Mira is fed up with standups.", "mira", "not with standups"},
		{"Jonas loathes crime podcasts.", "jonas", "not crime podcasts"},
		{"Jonas dislikes crime podcasts.", "jonas", "not crime podcasts"},
		// not a stance: "tired" without "of", "sick" as a modifier
		{"Jonas prefers tired jokes.", "jonas", "tired jokes"},
		{"Jonas thinks sick leave is fair.", "jonas", "sick leave fair"},
	} {
		p := parseOpinion(tc.text)
		if got := strings.Join(p.holder, " "); got != tc.holder {
			t.Errorf("%q: holder %q, want %q", tc.text, got, tc.holder)
		}
		if got := strings.Join(p.object, " "); got != tc.object {
			t.Errorf("%q: object %q, want %q", tc.text, got, tc.object)
		}
	}
	for name, cal := range calibrations(t) {
		for _, p := range [][2]string{
			{"Jonas enjoys crime podcasts.", "Jonas is tired of crime podcasts."},
			{"Mira likes standups.", "Mira is fed up with standups."},
		} {
			if got := DecideOpinion(p[0], p[1], 1, cal); got != OpinionConflict {
				t.Errorf("%s: %q then %q: %v, want conflict", name, p[0], p[1], got)
			}
		}
		if got := DecideOpinion("Jonas dislikes crime podcasts.", "Jonas is tired of crime podcasts.", 0, cal); got != OpinionSame {
			t.Errorf("%s: tired of restating dislikes: %v, want same", name, got)
		}
	}
}

// A preposition of time or place opens a context and names nothing: two
// opinions of one holder that share only such a word are on two aspects
// at any cosine, and the word it follows is the head of its phrase.
func TestPrepositionsNameNoAspect(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, p := range [][2]string{
			{"Hana likes workouts before breakfast.", "Hana likes jazz before dinner."},
			{"Per prefers naps after lunch.", "Per prefers walks after dinner."},
			{"Elif likes podcasts during commutes.", "Elif likes silence during meetings."},
		} {
			if got := DecideOpinion(p[0], p[1], 1, cal); got != OpinionUnrelated {
				t.Errorf("%s: %q then %q: %v, want unrelated", name, p[0], p[1], got)
			}
		}
		// "gym" heads its phrase before "before" as before "in".
		if got := DecideOpinion("Mira prefers the gym in the evening.", "Mira now prefers the gym before work.", 0, cal); got != OpinionConflict {
			t.Errorf("%s: the gym at another time: %v, want conflict", name, got)
		}
	}
}

// A changed mind that puts something else in the role the old opinion's
// object filled (the same "for" phrase) reopens it at any cosine; without
// a change marker, or at another time, the model decides.
func TestReopensSamePurpose(t *testing.T) {
	for name, cal := range calibrations(t) {
		belowFloor := []float64{-1, 0, cal.CosFloor - 0.01}
		wantAtCosines(t, name, cal, belowFloor, OpinionConflict, " (another thing for the same purpose)", [][2]string{
			{"Per likes Python for data work.", "Per has switched to Julia for data work."},
			{"Elif likes Zoom for client calls.", "Elif now prefers Teams for client calls."},
			{"Noor prefers a fountain pen for journaling.", "Noor nowadays prefers a pencil for journaling."},
		})
		wantAtCosines(t, name, cal, belowFloor, OpinionUnrelated, " (the model must say same topic)", [][2]string{
			{"Per likes Python for data work.", "Per likes Julia for data work."},
			{"Per likes Python for data work.", "Per now prefers Julia for side projects."},
			{"Ivan prefers running in the morning.", "Ivan now prefers tea in the morning."},
		})
	}
}

// A verb of taking the object in (watching, listening to, reading,
// eating, drinking) that only one opinion says leaves it the same
// opinion at any cosine; two such verbs that differ, a verb of doing, a
// negation, or a verb with no object right after it are left to the
// model and never re-affirmed on the words alone.
func TestConsumingVerbAdded(t *testing.T) {
	for name, cal := range calibrations(t) {
		belowFloor := []float64{-1, 0, cal.CosFloor - 0.01}
		wantAtCosines(t, name, cal, belowFloor, OpinionSame, " (a verb of taking it in)", [][2]string{
			{"Mira enjoys audiobooks on long drives.", "On long drives, Mira likes listening to audiobooks."},
			{"Per likes watching ski jumping.", "Per enjoys ski jumping."},
			{"Noor loves spicy ramen.", "Noor loves eating spicy ramen."},
			{"Ivan prefers oat milk in coffee.", "Ivan prefers to drink oat milk in coffee."},
		})
		for _, p := range [][2]string{
			{"Per likes watching the news.", "Per likes reading the news."},
			{"Per likes football.", "Per likes playing football."},
			{"Per likes football.", "Per no longer likes watching football."},
			{"Per likes reading in the evening.", "Per likes the evening."},
			{"Per likes novels.", "Per likes writing novels."},
		} {
			for _, c := range append(belowFloor, 1) {
				if got := DecideOpinion(p[0], p[1], c, cal); got == OpinionSame {
					t.Errorf("%s: %q then %q at cos %.2f: same, want not folded", name, p[0], p[1], c)
				}
			}
		}
	}
}

// At same_meaning, a possessed head may move after a complement of two
// plain words ([restates]); another order, another word, a name, or no
// possessive keeps it a conflict.
func TestPossessedHeadAfterTwoWords(t *testing.T) {
	for name, cal := range calibrations(t) {
		wantAtCosines(t, name, cal, []float64{cal.SameMeaning, 1}, OpinionSame, " (the head after its complement)", [][2]string{
			{"Jonas likes his eggs soft-boiled.", "Jonas prefers soft-boiled eggs."},
			{"Leila prefers medium rare steak.", "Leila likes her steak medium rare."},
		})
		wantAtCosines(t, name, cal, []float64{cal.SameMeaning, 1}, OpinionConflict, " (not the same words)", [][2]string{
			{"Jonas likes his eggs soft-boiled.", "Jonas prefers boiled soft eggs."},
			{"Jonas likes eggs soft-boiled.", "Jonas prefers soft-boiled eggs."},
			{"Jonas likes his tea Earl Grey.", "Jonas prefers Earl Grey tea."},
			{"Jonas likes his eggs not boiled.", "Jonas prefers not boiled eggs."},
		})
		if got := DecideOpinion("Jonas likes his eggs soft-boiled.", "Jonas prefers hard-boiled eggs.", 1, cal); got == OpinionSame {
			t.Errorf("%s: hard-boiled for soft-boiled re-affirmed", name)
		}
	}
}

// The Nordic-noir trap (#26): one medium or kind of work for another is
// another opinion, never a restatement, at any cosine, and with the
// restatement's own wording (an intensified stance) too. Both bundled
// models put "podcasts" as near "series" as "TV" (0.725 vs 0.729, 0.699
// vs 0.674), and WordNet's one path from series to TV joins it to radio
// as well, so only the table of media ([media]) may pair two heads: the
// works of one medium named otherwise (series, TV, shows; books, novels)
// restate at same_topic and above (from the floor where "TV" is the
// shared name), and never below it; every other pair
// of this list stays apart at any cosine.
func TestMediaAlternativesNeverRestate(t *testing.T) {
	media := []string{"series", "TV", "podcasts", "films", "books", "novels", "radio", "shows", "plays", "albums",
		"comics", "documentaries", "magazines", "audiobooks", "games"}
	oneMedium := map[string]string{"series": "tv", "TV": "tv", "shows": "tv", "books": "book", "novels": "book"}
	for name, cal := range calibrations(t) {
		for i, x := range media {
			for j, y := range media {
				if i == j {
					continue
				}
				a := "Marcus enjoys Nordic noir " + x + "."
				b := "Marcus is a big fan of Nordic noir " + y + "."
				same := oneMedium[x] != "" && oneMedium[x] == oneMedium[y]
				_, named := sameAspect(parseOpinion(a), parseOpinion(b))
				for _, c := range []float64{0, cal.SameTopic - 0.01, cal.SameTopic, cal.SameMeaning, 1} {
					want := same && (cal.OnSameTopic(c) || named && c >= cal.CosFloor)
					if got := DecideOpinion(a, b, c, cal); (got == OpinionSame) != want {
						t.Errorf("%s: %q then %q at cos %.2f: %v, want same=%v", name, a, b, c, got, want)
					}
				}
			}
		}
	}
}
