package vault

import (
	"strings"
	"testing"

	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/rank"
	"pgregory.net/rapid"
)

// The store's opinion rules on words no evaluation pair uses (#26): other
// people, other things held, other contexts, the change-of-mind markers
// of everyday English, and a noun restated as a gerund with its object.
// Each property holds for both calibrations, whatever the cosine the rule
// reads.
var (
	freshHolders = []string{"Ines", "Tomas", "Kofi", "Nadia", "The user", "Kofi's sister"}
	freshStances = []string{"prefers", "likes", "enjoys", "loves", "favours", "is a fan of", "would rather have"}
	freshValues  = []string{"rye bread", "cold showers", "paper notebooks", "Emacs", "Vue", "window seats",
		"jazz records", "mechanical keyboards", "board games", "audiobooks", "Mandarin lessons", "spicy food"}
	freshContexts = []string{"on Sundays", "at the gym", "for side projects", "during winter", "in the car",
		"after dinner", "for client demos", "on long trips"}
	// markerPrefix and markerSuffix say a mind changed ([changeMarked]);
	// "" is the bare form, which a held-out update may use too.
	markerPrefix = []string{"", "now ", "nowadays "}
	markerSuffix = []string{"", " these days", " instead"}
	// gerundNouns are nouns with the gerund of the same verb, and objects
	// such a gerund may take.
	gerundNouns = [][2]string{{"deploys", "deploying"}, {"uploads", "uploading"}, {"exports", "exporting"},
		{"rebases", "rebasing"}, {"prints", "printing"}, {"releases", "releasing"}}
	gerundMods    = []string{"batch", "nightly", "manual", "scheduled"}
	gerundObjects = []string{"services", "photos", "invoices", "feature branches", "reports", "laptop images"}
	// actNouns are nouns of an act with its gerund and its verb, and
	// actObjects what a compound of one says the act is done to ("car
	// washes" = "washing cars" = "to wash cars": [actsOnModifier]).
	actNouns   = [][3]string{{"walks", "walking", "walk"}, {"repairs", "repairing", "repair"}, {"washes", "washing", "wash"}, {"edits", "editing", "edit"}}
	actObjects = [][2]string{{"dog", "dogs"}, {"bike", "bikes"}, {"car", "cars"}, {"photo", "photos"}}
	// mediumWords name the works of one medium ([media]), and genres
	// what they may be of ([oneMedium]).
	mediumWords = [][]string{{"series", "TV shows", "dramas", "shows"}, {"novels", "books", "fiction"}, {"films", "movies"},
		{"songs", "music", "albums"}}
	genres = []string{"Korean crime", "sci-fi", "Italian horror", "folk"}
	// judgedAlike are two phrases of one judgement ([judgesAlike]), and
	// judgedThings what they judge.
	judgedAlike  = [][2]string{{"error-prone", "easy to mess up"}, {"clunky", "hard to use"}, {"sluggish", "slow"}, {"confusing", "hard to follow"}}
	judgedThings = []string{"Jenkins", "the booking site", "Bash scripts", "the old scanner"}
)

// One holder, two aspects that share no word: never a conflict, with or
// without a change-of-mind marker.
func TestPropFreshDifferentAspectsNeverConflict(t *testing.T) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(freshHolders).Draw(t, "holder")
		v1, v2, c1, c2 := drawOtherAspects(t, freshValues, freshContexts)
		pre := rapid.SampledFrom(markerPrefix).Draw(t, "prefix")
		a := strings.TrimSpace(holder+" "+rapid.SampledFrom(freshStances).Draw(t, "stance1")+" "+v1+" "+c1) + "."
		b := strings.TrimSpace(holder+" "+pre+rapid.SampledFrom(freshStances).Draw(t, "stance2")+" "+v2+" "+c2) + "."
		cos := rapid.Float64Range(-1, 1).Draw(t, "cos")
		wantVerdict(t, cals, a, b, OpinionUnrelated, func(rank.Calibration) []float64 { return []float64{cos, 1} })
	})
}

// A restatement is re-affirmed, never a conflict: another stance verb,
// the time words of a changed mind that change nothing ("now", "these
// days"), the context fronted, a noun said as a gerund with its object, a
// compound said as its act's verb with its object, one genre's works in
// one medium named otherwise, or one thing judged with two phrases of one
// judgement.
func TestPropFreshRestatementsNeverConflict(t *testing.T) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(freshHolders).Draw(t, "holder")
		context := rapid.SampledFrom(append(freshContexts, "")).Draw(t, "context")
		s1 := rapid.SampledFrom(freshStances).Draw(t, "stance1")
		s2 := rapid.SampledFrom(freshStances).Draw(t, "stance2")
		var a, b string
		switch rapid.IntRange(0, 5).Draw(t, "form") {
		case 0: // the stance said otherwise, a time word that changes nothing
			value := rapid.SampledFrom(freshValues).Draw(t, "value")
			a = strings.TrimSpace(holder+" "+s1+" "+value+" "+context) + "."
			b = strings.TrimSpace(holder+" "+rapid.SampledFrom(markerPrefix[:2]).Draw(t, "prefix")+s2+" "+value+" "+context) +
				rapid.SampledFrom(markerSuffix[:2]).Draw(t, "suffix") + "."
		case 1: // the context fronted
			value := rapid.SampledFrom(freshValues).Draw(t, "value")
			c := rapid.SampledFrom(freshContexts).Draw(t, "fronted")
			a = holder + " " + s1 + " " + value + " " + c + "."
			b = strings.ToUpper(c[:1]) + c[1:] + ", " + lowerHolder(holder) + " " + s2 + " " + value + "."
		case 2: // a noun as a gerund with its object
			ng := rapid.SampledFrom(gerundNouns).Draw(t, "noun")
			if !fts.SameWord(ng[0], ng[1]) {
				t.Fatalf("%q and %q are not one word to the literal channel", ng[0], ng[1])
			}
			mod := rapid.SampledFrom(gerundMods).Draw(t, "modifier")
			a = strings.TrimSpace(holder+" "+s1+" "+mod+" "+ng[0]+" "+context) + "."
			b = strings.TrimSpace(holder+" "+s2+" "+mod+"-"+ng[1]+" "+rapid.SampledFrom(gerundObjects).Draw(t, "object")+" "+context) + "."
		case 3: // a compound of an act said as its verb with its object
			act := rapid.SampledFrom(actNouns).Draw(t, "act")
			obj := rapid.SampledFrom(actObjects).Draw(t, "object")
			a = strings.TrimSpace(holder+" "+s1+" "+obj[0]+" "+act[0]+" "+context) + "."
			verb := rapid.SampledFrom([]string{"likes " + act[1], "prefers to " + act[2], "enjoys " + act[1]}).Draw(t, "verb")
			b = strings.TrimSpace(holder+" "+verb+" "+obj[1]+" "+context) + "."
		case 4: // one genre's works in one medium named otherwise
			m := rapid.SampledFrom(mediumWords).Draw(t, "medium")
			w1 := rapid.SampledFrom(m).Draw(t, "word1")
			w2 := rapid.SampledFrom(m).Filter(func(w string) bool { return w != w1 }).Draw(t, "word2")
			g := rapid.SampledFrom(genres).Draw(t, "genre")
			a = strings.TrimSpace(holder+" "+s1+" "+g+" "+w1+" "+context) + "."
			b = strings.TrimSpace(holder+" "+s2+" "+g+" "+w2+" "+context) + "."
		case 5: // one thing judged with two phrases of one judgement
			j := rapid.SampledFrom(judgedAlike).Draw(t, "judgement")
			thing := rapid.SampledFrom(judgedThings).Draw(t, "thing")
			a = holder + " finds " + thing + " " + j[0] + "."
			b = holder + " thinks " + thing + " " + map[bool]string{true: "are", false: "is"}[strings.HasSuffix(thing, "s")] + " " + j[1] + "."
		}
		a, b = maybeSwap(t, a, b)
		wantRestated(t, cals, a, b)
	})
}

// A changed stance always conflicts, with or without a marker: the
// polarity flipped, another thing held in the same context, a comparison
// turned round; a gerund restatement that says the mind changed is a
// conflict, not a re-affirmation; and the new restated forms (a compound
// as its act, one medium, one judgement) with the stance negated or
// ended always conflict.
func TestPropFreshChangedStanceAlwaysConflicts(t *testing.T) {
	cals := calibrations(t)
	negatives := []string{"dislikes", "doesn't like", "hates", "does not enjoy"}
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(freshHolders).Draw(t, "holder")
		value := rapid.SampledFrom(freshValues).Draw(t, "value")
		other := rapid.SampledFrom(freshValues).Filter(func(s string) bool { return !sharesWord(s, value) }).Draw(t, "other")
		context := rapid.SampledFrom(freshContexts).Draw(t, "context")
		pos := rapid.SampledFrom(freshStances).Draw(t, "stance")
		pre := rapid.SampledFrom(markerPrefix).Draw(t, "prefix")
		suf := rapid.SampledFrom(markerSuffix).Draw(t, "suffix")
		a := holder + " " + pos + " " + value + " " + context + "."
		var b string
		switch rapid.IntRange(0, 7).Draw(t, "change") {
		case 0:
			b = holder + " " + pre + rapid.SampledFrom(negatives).Draw(t, "negative") + " " + value + " " + context + suf + "."
		case 1:
			b = holder + " no longer " + strings.TrimSuffix(strings.Fields(pos)[0], "s") + " " + value + " " + context + "."
			if strings.Fields(pos)[0] == "is" || strings.Fields(pos)[0] == "would" {
				b = holder + " no longer likes " + value + " " + context + "."
			}
		case 2:
			b = holder + " " + pre + pos + " " + other + " " + context + suf + "."
		case 3:
			a = holder + " prefers " + value + " over " + other + " " + context + "."
			b = holder + " " + pre + "prefers " + other + " over " + value + " " + context + suf + "."
		case 4:
			ng := rapid.SampledFrom(gerundNouns).Draw(t, "noun")
			mod := rapid.SampledFrom(gerundMods).Draw(t, "modifier")
			a = holder + " " + pos + " " + mod + " " + ng[0] + " " + context + "."
			marker := rapid.SampledFrom([][2]string{{"now ", ""}, {"nowadays ", ""}, {"", " instead"}, {"", " these days"}}).Draw(t, "marker")
			b = holder + " " + marker[0] + pos + " " + mod + "-" + ng[1] + " " + rapid.SampledFrom(gerundObjects).Draw(t, "object") +
				" " + context + marker[1] + "."
		case 5: // a compound's act negated, or said with a changed mind
			act := rapid.SampledFrom(actNouns).Draw(t, "act")
			obj := rapid.SampledFrom(actObjects).Draw(t, "object")
			a = holder + " " + pos + " " + obj[0] + " " + act[0] + " " + context + "."
			b = holder + " " + rapid.SampledFrom([]string{"doesn't like ", "now dislikes ", "no longer enjoys "}).Draw(t, "negative") +
				act[1] + " " + obj[1] + " " + context + "."
		case 6: // one genre's works in one medium, the stance negated or changed
			m := rapid.SampledFrom(mediumWords).Draw(t, "medium")
			g := rapid.SampledFrom(genres).Draw(t, "genre")
			a = holder + " " + pos + " " + g + " " + rapid.SampledFrom(m).Draw(t, "word1") + " " + context + "."
			b = holder + " " + rapid.SampledFrom([]string{"doesn't like ", "no longer likes ", "hates "}).Draw(t, "negative") + g + " " +
				rapid.SampledFrom(m).Draw(t, "word2") + " " + context + suf + "."
		case 7: // one thing judged alike, the judgement negated or changed
			j := rapid.SampledFrom(judgedAlike).Draw(t, "judgement")
			thing := rapid.SampledFrom(judgedThings).Draw(t, "thing")
			a = holder + " finds " + thing + " " + j[0] + "."
			b = holder + " " + rapid.SampledFrom([]string{"no longer finds ", "doesn't find ", "has stopped finding "}).Draw(t, "negative") + thing + " " + j[1] + "."
		}
		a, b = maybeSwap(t, a, b)
		wantVerdict(t, cals, a, b, OpinionConflict, topicMeaningAndOne)
	})
}

func TestChangeMarked(t *testing.T) {
	for text, want := range map[string]bool{
		"Ines now prefers rye bread.":                       true,
		"Nowadays Ines prefers rye bread.":                  true,
		"Ines prefers rye bread these days.":                true,
		"Ines doesn't like rye bread anymore.":              true,
		"Ines no longer likes rye bread.":                   true,
		"Ines prefers rye bread instead.":                   true,
		"Ines used to like rye bread.":                      true,
		"Ines switched to rye bread.":                       true,
		"Ines has changed her mind about rye bread.":        true,
		"Ines has come to like rye bread.":                  true,
		"Ines has grown tired of rye bread.":                true,
		"Ines prefers rye bread.":                           false,
		"Ines likes rye bread on long trips.":               false,
		"Ines prefers rye bread over any more white bread.": true, // "any more": held back, never folded
		"Ines has rye bread on Sundays.":                    false,
	} {
		if got := changeMarked(fts.Words(text)); got != want {
			t.Errorf("changeMarked(%q) = %v, want %v", text, got, want)
		}
	}
}
