package vault

import (
	"strings"
	"testing"
)

// How an opinion is read when it is said the ways people repeat one
// (#26, session 12): a pronoun's contraction, a discourse marker, an
// adverb between holder and stance, a fronted adverb, a stance phrase
// (keen on, fond of, crazy about, into, can't stand), and the stances
// that ended (used to, has stopped, gave up) read as a negation.
func TestParseOpinionForms(t *testing.T) {
	for _, tc := range []struct {
		text, holder, object string
	}{
		{"I'm a big fan of hiking in the Alps.", "user", "of hiking in alps"},
		{"I’d rather take the train.", "user", "to train"},
		{"She's keen on sourdough baking.", "she", "on sourdough baking"},
		{"As I said, Rohan prefers window tables.", "rohan", "window tables"},
		{"Rohan prefers window tables, as mentioned before.", "rohan", "window tables"},
		{"Like I said Rohan prefers window tables.", "rohan", "window tables"},
		{"To be honest, I still prefer tabs over spaces.", "user", "tabs over spaces"},
		{"Signe generally likes cold brew.", "signe", "cold brew"},
		{"Arjun honestly thinks pair programming helps.", "arjun", "pair programming helps"},
		{"Downtown, Esther would rather take the tram.", "esther", "to tram downtown"},
		{"Kenji is keen on sourdough.", "kenji", "on sourdough"},
		{"Greta is fond of handwritten letters.", "greta", "of handwritten letters"},
		{"Ines is crazy about film cameras.", "ines", "about film cameras"},
		{"Yara is really into horror films.", "yara", "into horror films"},
		{"Yara is not into horror films.", "yara", "not into horror films"},
		{"Pablo can't stand crowded trains.", "pablo", "not crowded trains"},
		{"Pablo cannot bear crowded trains.", "pablo", "not crowded trains"},
		{"Signe used to like cold brew.", "signe", "not cold brew"},
		{"Zainab has stopped liking Firefox.", "zainab", "not firefox"},
		{"Zainab quit Firefox.", "zainab", "not firefox"},
		{"Zainab gave up on Firefox.", "zainab", "not on firefox"},
		{"Astrid thinks the build is far too complicated.", "astrid", "build too complicated"},
		// Not a past stance, not a marker: the words stay.
		{"Ivan is used to cold showers.", "", "ivan used to cold showers"},
		{"Again, the user prefers tea.", "user", "tea"},
		{"If possible, Lena prefers trains.", "lena", "trains if possible"},
	} {
		p := parseOpinion(tc.text)
		if got := strings.Join(p.holder, " "); got != tc.holder {
			t.Errorf("%q: holder %q, want %q", tc.text, got, tc.holder)
		}
		if got := strings.Join(p.object, " "); got != tc.object {
			t.Errorf("%q: object %q, want %q", tc.text, got, tc.object)
		}
	}
}

// The forms above decide as their words say, at any cosine and with
// either calibration: a repeated opinion is re-affirmed; one whose stance
// ended or turned is never folded into the old one.
func TestRestatedFormsDecide(t *testing.T) {
	cases := []sameCase{
		{"Lucas enjoys Icelandic folk music.", "I'm sure Lucas enjoys Icelandic folk music.", false},
		{"I love hiking in the Alps.", "I'm a big fan of hiking in the Alps.", true},
		{"The user prefers tabs over spaces.", "I still prefer tabs over spaces.", true},
		{"Rohan prefers window tables.", "As I said, Rohan prefers window tables.", true},
		{"Rohan prefers window tables.", "Rohan prefers window tables, as I mentioned earlier.", true},
		{"Signe likes cold brew in summer.", "Signe generally likes cold brew in summer.", true},
		{"Esther prefers trams over buses downtown.", "Downtown, Esther would rather take the tram than the bus.", true},
		{"Kenji loves sourdough baking.", "Kenji is keen on sourdough baking.", true},
		{"Ines adores vintage film cameras.", "Ines is crazy about vintage film cameras.", true},
		{"Pablo hates crowded trains.", "Pablo can't stand crowded trains.", true},
		{"Yara doesn't enjoy horror films.", "Yara is not into horror films.", true},
		{"Astrid finds the build overcomplicated.", "Astrid thinks the build is far too complicated.", true},
		{"Signe dislikes cold brew.", "Signe used to like cold brew.", true},
		// A stance ended or turned, whatever marker or adverb is said with it.
		{"Signe likes cold brew.", "Signe used to like cold brew.", false},
		{"Zainab really likes Firefox.", "Zainab has stopped liking Firefox.", false},
		{"Zainab likes Firefox.", "Zainab gave up Firefox.", false},
		{"Pablo likes crowded trains.", "Pablo can't stand crowded trains.", false},
		{"Yara is into horror films.", "Yara is not into horror films.", false},
		{"Kenji is keen on sourdough.", "Kenji is not keen on sourdough.", false},
		{"Rohan likes window tables.", "As I said, Rohan no longer likes window tables.", false},
		{"The user prefers tabs over spaces.", "I still prefer spaces over tabs.", false},
		{"Rohan prefers window tables.", "Honestly, Rohan prefers booth tables.", false},
		{"Astrid finds the build too complicated.", "Astrid finds the build far too simple.", false},
		{"Esther prefers trams downtown.", "Uptown, Esther would rather take the tram.", false},
	}
	wantSameAtEveryCosine(t, cases)
	// A changed stance of one holder on one aspect is a conflict wherever
	// the model says the two share a topic (the first pair names another
	// holder: "I'm sure Lucas").
	for name, cal := range calibrations(t) {
		for _, tc := range cases[1:] {
			for _, cos := range []float64{cal.SameTopic, 1} {
				if got := DecideOpinion(tc.a, tc.b, cos, cal); !tc.same && got != OpinionConflict {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want a conflict", name, tc.a, tc.b, cos, got)
				}
			}
		}
	}
}

// A possessed word heads its phrase: "his tea sweet" is about tea, as
// "sweet tea" is, so the two share an aspect (and restate at
// same_meaning), and a changed way of taking it conflicts; tea as a
// modifier ("tea shops") is still another aspect.
func TestPossessedHeadSharesAspect(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			cos  float64
			want OpinionVerdict
		}{
			{"Chidi likes his tea sweet.", "Chidi prefers sweet tea.", cal.SameMeaning, OpinionSame},
			{"Chidi likes his tea sweet.", "Chidi still likes tea, but without sugar.", cal.SameTopic, OpinionConflict},
			{"Chidi likes his tea sweet.", "Chidi likes tea shops.", 1, OpinionUnrelated},
		} {
			if got := DecideOpinion(tc.a, tc.b, tc.cos, cal); got != tc.want {
				t.Errorf("%s: %q then %q at cos %.2f: %v, want %v", name, tc.a, tc.b, tc.cos, got, tc.want)
			}
		}
	}
}

// "Prefers X to Y" is "prefers X over Y": the two restate at any cosine;
// the comparison turned round, or a "to" of another sense, never does.
func TestPrefersToIsOver(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Paulina prefers paper books over e-readers.", "Paulina still prefers paper books to e-readers.", true},
		{"Lena prefers trains to planes within Europe.", "Within Europe, Lena would rather take trains over planes.", true},
		{"Paulina prefers e-readers over paper books.", "Paulina prefers paper books to e-readers.", false},
		{"Lena prefers tea to coffee.", "Lena prefers coffee to tea.", false},
		{"Lena prefers tea to coffee.", "Lena prefers coffee over tea.", false},
		{"Ruth prefers driving to Oslo.", "Ruth prefers driving over flying to Oslo.", false},
		{"Yusuf prefers tabs to keep diffs small.", "Yusuf prefers spaces over tabs.", false},
		{"Mira likes listening to audiobooks.", "Mira likes audiobooks over podcasts.", false},
	})
}

// A modifier said as a phrase after its head, or after the verb the
// lexicon says the head as, restates at any cosine ([movesModifier]);
// another modifier, no preposition, a name moved, a preposition that
// names a time ("before"), a changed mind or a turned stance never does.
func TestModifierAfterHead(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Wanjiru loves morning yoga.", "Wanjiru loves yoga in the morning.", true},
		{"Sofia prefers swims in the evening.", "Sofia prefers evening swims.", true},
		{"Ana prefers home cooking on weekdays.", "Ana prefers cooking at home on weekdays.", true},
		{"Lena likes milk tea.", "Lena likes tea with milk.", true},
		{"Mira prefers early flights.", "Mira likes to fly early.", true},
		{"Wanjiru loves morning yoga.", "Wanjiru loves yoga in the evening.", false},
		{"Lena likes milk chocolate.", "Lena likes chocolate milk.", false},
		{"Hana likes breakfast workouts.", "Hana likes workouts before breakfast.", false},
		{"Mira prefers early flights.", "Mira likes to fly late.", false},
		{"Mira prefers early flights.", "Mira no longer likes to fly early.", false},
		{"Mira prefers early flights.", "Mira now likes to fly early.", false},
		{"Wanjiru loves morning yoga.", "Wanjiru dislikes yoga in the morning.", false},
		{"Ivan prefers window seats on night trains.", "Ivan prefers night seats on window trains.", false},
	})
}

// The everyday act an object is chosen for, said as an infinitive after
// "would rather" or "prefers to" (pay, shop, book, ride, …), leaves the
// opinion what it was ([usingVerbs]); the same word as a noun, a verb
// against the object, another act on each side, or a negation never
// does.
func TestUsingVerbAdded(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Per prefers cash over card at markets.", "At markets, Per would rather pay cash than card.", true},
		{"Freya prefers weekend markets.", "Freya would rather shop at markets on the weekend.", true},
		{"Lena prefers window seats.", "Lena prefers to book window seats.", true},
		{"Lena prefers the night bus.", "Lena would rather ride the night bus.", true},
		{"Lena likes book clubs.", "Lena likes clubs.", false},
		{"Lena likes shop windows.", "Lena likes windows.", false},
		{"Tobias prefers the gym.", "Tobias would rather skip the gym.", false},
		{"Per prefers cash.", "Per would rather pay by card.", false},
		{"Lena prefers trains.", "Lena would rather not ride trains.", false},
		{"Per would rather pay cash.", "Per would rather buy cash.", false},
	})
}

// sameCase is a pair of opinions and whether the second restates the
// first.
type sameCase struct {
	a, b string
	same bool
}

// wantSameAtEveryCosine checks each case with either calibration at
// every cosine a rule reads (-1, same_topic, same_meaning, 1): the rules
// these cases judge are literal, so the verdict must not move with it.
func wantSameAtEveryCosine(t *testing.T, cases []sameCase) {
	for name, cal := range calibrations(t) {
		for _, tc := range cases {
			for _, cos := range []float64{-1, cal.SameTopic, cal.SameMeaning, 1} {
				if got := DecideOpinion(tc.a, tc.b, cos, cal); (got == OpinionSame) != tc.same {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want same=%v", name, tc.a, tc.b, cos, got, tc.same)
				}
			}
		}
	}
}

// "X in Y" restates "Y with X" at any cosine ([inverts]); another thing
// in either part, a negation, or a part left over never does.
func TestInvertedPhrases(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Kim prefers oat milk in coffee.", "Kim likes her coffee with oat milk.", true},
		{"Lena loves cheese on toast.", "Lena is a big fan of toast with cheese.", true},
		{"Kim prefers oat milk in coffee.", "Kim likes her tea with oat milk.", false},
		{"Kim prefers oat milk in coffee.", "Kim likes her coffee with soy milk.", false},
		{"Kim prefers oat milk in coffee.", "Kim likes her coffee without oat milk.", false},
		{"Kim prefers oat milk in coffee at work.", "Kim likes her coffee with oat milk.", false},
		{"Jonas thinks pineapple on pizza is wrong.", "Jonas thinks pizza with pineapple is great.", false},
	})
}

// What the session-12 readings let through never folds a changed or
// other opinion: another thing with the same marker or phrase, an ended
// or negated stance, a verb against the object, a comparison turned, an
// inversion or a moved modifier with another word, at same_topic and at
// cosine 1, with either calibration.
func TestFormsNeverFoldAChange(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, p := range [][2]string{
			{"Kim loves her coffee with milk.", "Kim now prefers milk in her tea."},
			{"Kim still likes jazz.", "Kim still likes rock."},
			{"As I said, Kim prefers tea.", "Kim prefers coffee."},
			{"Kim used to prefer tea.", "Kim prefers tea."},
			{"Kim gave up coffee.", "Kim loves coffee."},
			{"Kim is into jazz.", "Kim is into rock."},
			{"Kim would rather buy a car.", "Kim would rather rent a car."},
			{"Kim would rather pay cash.", "Kim would rather not pay cash."},
			{"Kim prefers a dog.", "Kim would rather get rid of the dog."},
			{"Kim likes morning coffee.", "Kim likes coffee in the evening."},
			{"Kim likes Italian food, especially pasta.", "Kim likes Italian food, including pizza."},
			{"Kim loves Thai food, especially green curry.", "Kim hates Thai food."},
			{"Kim prefers tea.", "Kim has stopped preferring tea."},
			{"Kim prefers tea.", "Honestly, Kim no longer prefers tea."},
			{"Kim prefers tea to coffee.", "Kim prefers coffee over tea."},
			{"Kim likes dogs in the office.", "Kim likes offices without dogs."},
			{"Kim is fond of cats.", "Kim is not fond of cats."},
			{"Kim is keen on remote work.", "Kim is keen on office work."},
			{"Kim loves yoga in the morning.", "Kim loves morning runs."},
			{"Kim likes sugar in tea.", "Kim likes tea without sugar."},
			{"Kim likes milk in tea.", "Kim likes tea with lemon."},
			{"Kim likes her steak rare.", "Kim prefers well-done steak."},
			{"The user prefers dark mode.", "I'd rather not use dark mode."},
			{"I love hiking.", "I'm not a fan of hiking."},
			{"Kim prefers trams downtown.", "Uptown, Kim prefers trams."},
			{"Kim would rather ride the bus.", "Kim would rather ride a bike."},
			{"Kim prefers early meetings.", "Kim prefers to meet late."},
		} {
			for _, c := range []float64{cal.SameTopic, 1} {
				if got := DecideOpinion(p[0], p[1], c, cal); got == OpinionSame {
					t.Errorf("%s: %q then %q at cos %.2f: folded", name, p[0], p[1], c)
				}
			}
		}
	}
}

// Another modifier of one head is a conflict from the model's floor up
// ([swapsModifier]): "aisle seats" then "window seats" even where the
// model puts the two below same_topic. A shared context ("before
// breakfast", "in the morning"), another head, or a word the lexicon
// pairs is no such swap; below the floor nothing is a conflict.
func TestSwappedModifierConflicts(t *testing.T) {
	for name, cal := range calibrations(t) {
		floor := cal.CosFloor
		for _, tc := range []struct {
			a, b string
			cos  float64
			want OpinionVerdict
		}{
			{"I prefer aisle seats.", "I'd rather have window seats.", floor, OpinionConflict},
			{"Ingrid likes morning runs.", "Ingrid likes evening runs.", floor, OpinionConflict},
			{"Priya prefers Vue components.", "Priya prefers React components.", floor, OpinionConflict},
			{"Ivan prefers window seats on night trains.", "Ivan prefers aisle seats on night trains.", floor, OpinionConflict},
			{"I prefer aisle seats.", "I'd rather have window seats.", floor - 0.01, OpinionUnrelated},
			{"Hana likes workouts before breakfast.", "Hana likes jazz before breakfast.", floor, OpinionUnrelated},
			{"Jonas likes tea in the morning.", "Jonas likes running in the morning.", floor, OpinionUnrelated},
			{"Kenji is keen on sourdough baking.", "Kenji is keen on sourdough pizza.", floor, OpinionUnrelated},
			{"Emeka likes couch cushions.", "Emeka likes sofa cushions.", floor, OpinionSame},
		} {
			if got := DecideOpinion(tc.a, tc.b, tc.cos, cal); got != tc.want {
				t.Errorf("%s: %q then %q at cos %.2f: %v, want %v", name, tc.a, tc.b, tc.cos, got, tc.want)
			}
		}
	}
}

// "doing" before the object is the gerund of the light verb "do", which
// an opinion already drops ("would rather do the crossword"): "likes
// doing jigsaw puzzles" holds what "enjoys jigsaw puzzles" holds. Another
// verb of doing, an ended stance or another object never folds.
func TestDoingIsLight(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Tariq enjoys jigsaw puzzles on rainy days.", "On rainy days, Tariq likes doing jigsaw puzzles.", true},
		{"Kim loves doing yoga in the morning.", "Kim loves yoga in the morning.", true},
		{"Kim prefers doing the dishes by hand.", "Kim would rather do the dishes by hand.", true},
		{"Kim likes doing yoga.", "Kim likes teaching yoga.", false},
		{"Kim likes yoga.", "Kim no longer likes doing yoga.", false},
		{"Kim likes doing crosswords.", "Kim likes doing sudoku.", false},
		{"Kim likes doing the dishes.", "Kim doesn't like doing the dishes.", false},
	})
}

// One of the alternatives of a comparison said as the act of travelling
// by it ("than drive" for "over cars", "than fly" for "over planes")
// restates the comparison ([travelsBy]); outside a comparison, another
// vehicle or act, or the comparison turned, it never does.
func TestTravelActForVehicle(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Elodie prefers e-bikes over cars for the commute.", "For the commute, Elodie would rather ride an e-bike than drive.", true},
		{"Ines prefers buses over cars.", "Ines would rather take the bus than drive.", true},
		{"Kim prefers trains over planes.", "Kim would rather take the train than fly.", true},
		{"Kim prefers bikes over cars in the city.", "In the city, Kim prefers cycling over driving.", true},
		{"Kim likes cars.", "Kim likes driving.", false},
		{"Ines prefers buses over cars.", "Ines would rather drive than take the bus.", false},
		{"Ines prefers buses over vans.", "Ines would rather take the bus than drive.", false},
		{"Ines prefers buses over cars.", "Ines would rather take the bus than fly.", false},
		{"Kim prefers trains over boats.", "Kim would rather take the train than fly.", false},
		{"Ines prefers buses over cars.", "Ines would rather take the bus than not drive.", false},
	})
}

// One holder's opinions on two things that share only a modifier
// ("sourdough baking" / "sourdough pizza", "summer festivals" / "summer
// salads") are two aspects at any cosine ([sharesModifierOnly]). Two
// things of one kind (coffee, tea), a shared context (another thing in
// the same context is a changed mind), a possessed head ("his steak
// rare"), a name, a negation, a comparison or a changed mind keeps the
// conflict; no such pair is ever folded.
func TestSharedModifierOtherAspect(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []struct {
			a, b string
			want OpinionVerdict
		}{
			{"Kenji is keen on sourdough baking.", "Kenji is keen on sourdough pizza.", OpinionUnrelated},
			{"Freya prefers weekend markets.", "Freya prefers quiet weekend mornings.", OpinionUnrelated},
			{"Rania loves summer festivals.", "Rania loves summer salads.", OpinionUnrelated},
			{"Anouk prefers green tea.", "Anouk prefers green walls in the kitchen.", OpinionUnrelated},
			{"Kim likes morning coffee.", "Kim likes morning tea.", OpinionConflict},
			{"Jonas prefers tea in the morning.", "Jonas prefers coffee in the morning.", OpinionConflict},
			{"Jonas likes rye bread on Sundays.", "Jonas likes spicy food on Sundays.", OpinionConflict},
			{"Malik likes his steak rare.", "Malik likes his steak well-done.", OpinionConflict},
			{"Priya prefers Vue components.", "Priya prefers Vue templates.", OpinionConflict},
			{"Kim likes summer festivals.", "Kim now likes summer salads.", OpinionConflict},
			{"Kim likes summer festivals.", "Kim likes summer salads over festivals.", OpinionConflict},
			{"Sofia enjoys Scandinavian crime novels.", "Sofia is a big fan of Scandinavian crime films.", OpinionConflict},
			{"Sofia enjoys Scandinavian crime novels.", "Sofia is a big fan of Scandinavian crime books.", OpinionSame},
			{"Astrid finds the build too complicated.", "Astrid finds the build far too simple.", OpinionConflict},
			{"Esther prefers trams downtown.", "Uptown, Esther would rather take the tram.", OpinionConflict},
			{"Otto likes climbing indoors.", "Otto likes climbing outdoors.", OpinionConflict},
		} {
			for _, c := range []float64{cal.SameTopic, cal.SameMeaning, 0.99} {
				if got := DecideOpinion(tc.a, tc.b, c, cal); got != tc.want {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want %v", name, tc.a, tc.b, c, got, tc.want)
				}
			}
		}
	}
}

// A changed mind that names what now fills the old opinion's purpose
// with the purpose as its modifier ("sticky notes for reminders" then
// "has switched to a reminders app") reopens it, wherever the model puts
// the two ([purposeModifies]); another purpose, or no changed mind below
// same_topic, leaves both standing, and none of them ever folds.
func TestPurposeSaidAsModifier(t *testing.T) {
	for name, cal := range calibrations(t) {
		low := []float64{-1, 0, cal.CosFloor - 0.01}
		wantAtCosines(t, name, cal, low, OpinionConflict, " (the purpose said as a modifier)", [][2]string{
			{"Idris prefers sticky notes for reminders.", "Idris has switched to a reminders app."},
			{"Kim prefers spreadsheets for budgeting.", "Kim has switched to a budgeting app."},
			{"Kim likes the budgeting app.", "Kim now prefers spreadsheets for budgeting."},
			// a purpose the lexicon pairs with itself (planning, plan)
			// shares an aspect word, so the rule must reopen there too
			{"Kim prefers paper notebooks for planning.", "Kim has switched to a planning app."},
		})
		wantAtCosines(t, name, cal, low, OpinionUnrelated, " (another purpose, or no change)", [][2]string{
			{"Kim prefers spreadsheets for budgeting.", "Kim has switched to a running app."},
			{"Kim prefers spreadsheets for budgeting.", "Kim likes the budgeting app."},
		})
	}
	wantSameAtEveryCosine(t, []sameCase{
		{"Idris prefers sticky notes for reminders.", "Idris has switched to a reminders app.", false},
		{"Kim prefers spreadsheets for budgeting.", "Kim likes the budgeting app.", false},
	})
}

// "has lost interest in" ends a stance as "has stopped liking" does
// ([stoppedAt]): a changed mind about the object, at any cosine, never a
// restatement of the stance it ended.
func TestLostInterestEndsStance(t *testing.T) {
	for name, cal := range calibrations(t) {
		wantAtCosines(t, name, cal, []float64{-1, 0, cal.CosFloor - 0.01, cal.SameTopic, 1}, OpinionConflict, " (an ended stance)", [][2]string{
			{"Kim enjoys pottery.", "Kim has lost interest in pottery."},
		})
		// The old one ended, the new one takes it up again: the model
		// must put them on one topic, as for "stopped liking".
		wantAtCosines(t, name, cal, []float64{cal.SameTopic, 1}, OpinionConflict, " (an ended stance)", [][2]string{
			{"Kim lost interest in chess.", "Kim loves chess."},
		})
	}
	wantSameAtEveryCosine(t, []sameCase{
		{"Kim has lost interest in pottery.", "Kim has stopped liking pottery.", true},
		{"Kim has lost interest in pottery.", "Kim has lost interest in painting.", false},
		{"Kim enjoys pottery.", "Kim has lost interest in pottery.", false},
	})
}

// A compound of a modifier and the noun of an act restates that act's
// verb with the modifier as its object ("dog walks" = "walking dogs",
// "bike repairs" = "to repair bikes": [actsOnModifier]) at any cosine;
// another object, another context, a negation, a changed mind, or two
// nouns swapped never does, and a changed context or stance about the
// act still conflicts.
func TestCompoundSaidAsAct(t *testing.T) {
	wantSameAtEveryCosine(t, []sameCase{
		{"Noor likes dog walks in the evening.", "Noor prefers walking dogs in the evenings.", true},
		{"Tomas enjoys doing bike repairs on weekends.", "On weekends, Tomas likes to repair bikes.", true},
		{"Ayla prefers plant watering before work.", "Ayla would rather water plants before work.", true},
		{"Ingrid likes essay grading.", "Ingrid enjoys grading essays.", true},
		{"Noor likes dog walks.", "Noor likes walking cats.", false},
		{"Noor likes dog walks in the evening.", "Noor prefers walking dogs in the mornings.", false},
		{"Noor likes dog walks.", "Noor doesn't like walking dogs.", false},
		{"Noor likes dog walks.", "Noor now prefers walking dogs.", false},
		{"Ingrid likes milk chocolate.", "Ingrid likes chocolate milk.", false},
		{"Ingrid likes essay grading.", "Ingrid likes grading Essays.", false},
	})
	for name, cal := range calibrations(t) {
		for _, tc := range [][2]string{
			{"Noor likes dog walks in the evening.", "Noor prefers walking dogs in the mornings."},
			{"Noor likes dog walks.", "Noor doesn't like walking dogs."},
			{"Tomas enjoys bike repairs.", "Tomas has stopped enjoying repairing bikes."},
		} {
			for _, cos := range []float64{cal.SameTopic, cal.SameMeaning, 1} {
				if got := DecideOpinion(tc[0], tc[1], cos, cal); got != OpinionConflict {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want conflict", name, tc[0], tc[1], cos, got)
				}
			}
		}
	}
}

// Works of one genre in one medium, named otherwise ("K-pop songs" /
// "K-pop music", "Italian food" / "Italian cuisine", "horror series" /
// "horror TV shows": [oneMedium]), restate at same_topic and above (from
// the floor when the genre is a name), and never below (the model must
// put them on one topic); another medium,
// another genre, a negation or a changed mind never restates at any
// cosine.
func TestOneMediumRestates(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []sameCase{
			{"Yuki loves K-pop songs.", "Yuki is a big fan of K-pop music.", true},
			{"Dario enjoys Italian food.", "Dario really likes Italian cuisine.", true},
			{"Ama likes horror series on Fridays.", "On Fridays, Ama enjoys horror TV shows.", true},
			{"Ama likes fantasy novels.", "Ama is a fan of fantasy fiction.", true},
			{"Ama likes horror series.", "Ama likes horror films.", false},
			{"Ama likes horror series.", "Ama likes horror podcasts.", false},
			{"Ama likes horror series.", "Ama likes comedy shows.", false},
			{"Ama likes horror series.", "Ama doesn't like horror shows.", false},
			{"Ama likes horror series.", "Ama now prefers horror shows.", false},
			{"Ama likes horror series.", "Ama likes horror series dinners.", false},
			{"Dario enjoys Italian food.", "Dario enjoys Italian films.", false},
		} {
			_, named := sameAspect(parseOpinion(tc.a), parseOpinion(tc.b))
			for _, cos := range []float64{-1, cal.CosFloor - 0.01, cal.CosFloor, cal.SameTopic - 0.01, cal.SameTopic, cal.SameMeaning, 1} {
				want := tc.same && (cal.OnSameTopic(cos) || named && cos >= cal.CosFloor)
				if got := DecideOpinion(tc.a, tc.b, cos, cal); (got == OpinionSame) != want {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want same=%v", name, tc.a, tc.b, cos, got, want)
				}
			}
		}
	}
}

// One thing judged with two phrases of one judgement ("finds Bash
// error-prone" / "thinks Bash is easy to mess up", "clunky" / "hard to
// use": [judgesAlike]) restates where the model puts the two on one topic
// (a shared name needs only its floor); another judgement, another
// thing, a negation, the judgement turned or a changed mind never does.
func TestJudgedAlikeRestates(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, tc := range []sameCase{
			{"Sanna finds Bash scripts error-prone.", "Sanna thinks Bash scripts are easy to mess up.", true},
			{"Sanna finds the expense tool clunky.", "Sanna thinks the expense tool is hard to use.", true},
			{"Omar finds the old tablet sluggish.", "Omar thinks the old tablet is slow.", true},
			{"Omar finds Terraform docs confusing.", "Omar thinks Terraform docs are hard to follow.", true},
			{"Sanna finds Bash scripts error-prone.", "Sanna thinks Bash scripts are slow.", false},
			{"Sanna finds Bash scripts error-prone.", "Sanna thinks Perl scripts are easy to mess up.", false},
			{"Sanna finds Bash scripts error-prone.", "Sanna thinks Bash scripts are hard to get wrong.", false},
			{"Sanna finds Bash scripts error-prone.", "Sanna thinks Bash scripts are not easy to mess up.", false},
			{"Sanna finds Bash scripts error-prone.", "Sanna now thinks Bash scripts are easy to mess up.", false},
			{"Sanna finds the expense tool clunky.", "Sanna thinks the expense tool is easy to use.", false},
			{"Sanna finds the expense tool clunky.", "Sanna thinks the expense tool is hard to set up.", false},
			{"Omar finds the old tablet sluggish.", "Omar finds the old tablet unreliable.", false},
		} {
			_, named := sameAspect(parseOpinion(tc.a), parseOpinion(tc.b))
			for _, cos := range []float64{-1, cal.CosFloor - 0.01, cal.CosFloor, cal.SameTopic - 0.01, cal.SameTopic, cal.SameMeaning, 1} {
				want := tc.same && (cal.OnSameTopic(cos) || named && cos >= cal.CosFloor)
				if got := DecideOpinion(tc.a, tc.b, cos, cal); (got == OpinionSame) != want {
					t.Errorf("%s: %q then %q at cos %.2f: %v, want same=%v", name, tc.a, tc.b, cos, got, want)
				}
			}
		}
	}
}
