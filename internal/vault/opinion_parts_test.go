package vault

import (
	"strings"
	"testing"

	"github.com/compartment/compartment/rank"
	"pgregory.net/rapid"
)

// The vocabulary of the property tests: holders, stance verbs (positive,
// and the ways a negative stance is written), things held and contexts.
var (
	propHolders   = []string{"Lena", "Marcus", "Priya", "Oskar", "The user", "Lena's manager"}
	propStances   = []string{"prefers", "likes", "loves", "enjoys", "favours", "would rather have", "is a fan of", "really likes", "wants"}
	propNegatives = []string{"dislikes", "doesn't like", "hates", "no longer likes", "does not like"}
	propValues    = []string{"green tea", "oat milk", "Helix", "Zed", "Postgres", "squash merges", "dark roast coffee",
		"sparkling water", "a monorepo", "tabs", "early standups", "long answers", "Kustomize", "night trains"}
	propContexts = []string{"with lunch", "for Kotlin work", "in the summer house", "for public APIs", "before noon",
		"on weekends", "for the merchant API", "within Scandinavia", "at the office"}
)

// sharesWord reports whether two phrases share a word (case-folded).
func sharesWord(a, b string) bool {
	for _, w := range strings.Fields(strings.ToLower(a)) {
		for _, x := range strings.Fields(strings.ToLower(b)) {
			if w == x && w != "a" && w != "the" {
				return true
			}
		}
	}
	return false
}

// drawOtherAspects draws two things held that share no word and two
// contexts that share none, either context possibly absent: one holder's
// two different aspects.
func drawOtherAspects(t *rapid.T, values, contexts []string) (v1, v2, c1, c2 string) {
	v1 = rapid.SampledFrom(values).Draw(t, "value1")
	v2 = rapid.SampledFrom(values).Filter(func(s string) bool { return !sharesWord(s, v1) }).Draw(t, "value2")
	c1 = rapid.SampledFrom(append(contexts, "")).Draw(t, "context1")
	c2 = rapid.SampledFrom(append(contexts, "")).Filter(func(s string) bool { return s == "" || !sharesWord(s, c1) }).Draw(t, "context2")
	return v1, v2, c1, c2
}

// maybeSwap draws whether b is stored first.
func maybeSwap(t *rapid.T, a, b string) (string, string) {
	if rapid.Bool().Draw(t, "swap") {
		return b, a
	}
	return a, b
}

// wantVerdict fails t unless DecideOpinion finds want for a then b under
// every calibration, at each cosine at gives for that calibration.
func wantVerdict(t *rapid.T, cals map[string]rank.Calibration, a, b string, want OpinionVerdict, at func(rank.Calibration) []float64) {
	for name, cal := range cals {
		for _, c := range at(cal) {
			if got := DecideOpinion(a, b, c, cal); got != want {
				t.Fatalf("%s: %q then %q at cos %.3f: %v, want %v", name, a, b, c, got, want)
			}
		}
	}
}

// topicMeaningAndOne are the cosines at which a changed stance must still
// conflict: the calibration's same-topic and same-meaning points, and 1.
func topicMeaningAndOne(cal rank.Calibration) []float64 {
	return []float64{cal.SameTopic, cal.SameMeaning, 1}
}

// wantRestated fails t unless a then b is the same opinion at cosine 1 and
// no conflict at same_meaning, under every calibration.
func wantRestated(t *rapid.T, cals map[string]rank.Calibration, a, b string) {
	for name, cal := range cals {
		if got := DecideOpinion(a, b, 1, cal); got != OpinionSame {
			t.Fatalf("%s: %q then %q: %v, want same", name, a, b, got)
		}
		if got := DecideOpinion(a, b, cal.SameMeaning, cal); got == OpinionConflict {
			t.Fatalf("%s: %q then %q at same_meaning: conflict", name, a, b)
		}
	}
}

// One holder, two different aspects: never a conflict (nor a
// restatement), whatever the cosine and whichever model's calibration.
func TestPropOneHolderDifferentAspectsNeverConflict(t *testing.T) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(propHolders).Draw(t, "holder")
		v1, v2, c1, c2 := drawOtherAspects(t, propValues, propContexts)
		a := strings.TrimSpace(holder+" "+rapid.SampledFrom(propStances).Draw(t, "stance1")+" "+v1+" "+c1) + "."
		b := strings.TrimSpace(holder+" "+rapid.SampledFrom(append(propStances, propNegatives...)).Draw(t, "stance2")+" "+v2+" "+c2) + "."
		cos := rapid.Float64Range(-1, 1).Draw(t, "cos")
		wantVerdict(t, cals, a, b, OpinionUnrelated, func(rank.Calibration) []float64 { return []float64{cos, 1} })
	})
}

// restatement writes an opinion otherwise: another stance verb, a
// changed-mind "now", the context fronted with a comma, a hedge, the
// negative stance written another way.
func restatement(t *rapid.T, holder, value, context string, negative bool) (string, string) {
	stances := propStances
	if negative {
		stances = propNegatives
	}
	s1 := rapid.SampledFrom(stances).Draw(t, "stance1")
	s2 := rapid.SampledFrom(stances).Draw(t, "stance2")
	a := strings.TrimSpace(holder+" "+s1+" "+value+" "+context) + "."
	var b string
	switch rapid.IntRange(0, 3).Draw(t, "form") {
	case 0:
		b = strings.TrimSpace(holder+" "+s2+" "+value+" "+context) + "."
	case 1:
		b = strings.TrimSpace(holder+" now "+s2+" "+value+" "+context) + "."
	case 2:
		if context == "" {
			b = holder + " " + s2 + " " + value + " for most things."
		} else {
			b = strings.ToUpper(context[:1]) + context[1:] + ", " + lowerHolder(holder) + " " + s2 + " " + value + "."
		}
	case 3:
		b = strings.TrimSpace(holder+" "+s2+" "+value+" "+context) + " in general."
	}
	return a, b
}

func lowerHolder(h string) string {
	if h == "The user" {
		return "the user"
	}
	return h
}

// A restatement (same holder, aspect and stance, said otherwise) is
// re-affirmed, never a conflict.
func TestPropRestatementsNeverConflict(t *testing.T) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(propHolders).Draw(t, "holder")
		value := rapid.SampledFrom(propValues).Draw(t, "value")
		context := rapid.SampledFrom(append(propContexts, "")).Draw(t, "context")
		a, b := restatement(t, holder, value, context, rapid.Bool().Draw(t, "negative"))
		a, b = maybeSwap(t, a, b)
		wantRestated(t, cals, a, b)
	})
}

// A changed stance on one aspect (the polarity flipped, the thing held
// changed in the same context, a comparison turned round, an alternative
// preferred over it) always conflicts, and is never folded.
func TestPropChangedStanceAlwaysConflicts(t *testing.T) {
	cals := calibrations(t)
	rapid.Check(t, func(t *rapid.T) {
		holder := rapid.SampledFrom(propHolders).Draw(t, "holder")
		value := rapid.SampledFrom(propValues).Draw(t, "value")
		other := rapid.SampledFrom(propValues).Filter(func(s string) bool { return !sharesWord(s, value) }).Draw(t, "other")
		context := rapid.SampledFrom(propContexts).Draw(t, "context")
		pos := rapid.SampledFrom(propStances).Draw(t, "stance")
		now := rapid.SampledFrom([]string{"", "now "}).Draw(t, "now")
		a := holder + " " + pos + " " + value + " " + context + "."
		var b string
		switch rapid.IntRange(0, 3).Draw(t, "change") {
		case 0: // the polarity flipped
			b = holder + " " + now + rapid.SampledFrom(propNegatives).Draw(t, "negative") + " " + value + " " + context + "."
		case 1: // another thing held in the same context
			b = holder + " " + now + pos + " " + other + " " + context + "."
		case 2: // a comparison turned round
			a = holder + " prefers " + value + " over " + other + " " + context + "."
			b = holder + " " + now + "prefers " + other + " over " + value + " " + context + "."
		case 3: // an alternative preferred over it
			b = holder + " " + now + "prefers " + other + " over " + value + " " + context + "."
		}
		a, b = maybeSwap(t, a, b)
		wantVerdict(t, cals, a, b, OpinionConflict, topicMeaningAndOne)
	})
}

func TestParseOpinion(t *testing.T) {
	for _, tc := range []struct {
		text, holder, aspect string
	}{
		{"Lena prefers oat milk in her coffee.", "lena", "oat milk coffee"},
		{"Lena likes sparkling water with lunch.", "lena", "sparkling water lunch"},
		{"For Go code I prefer spaces, not tabs.", "user", "spaces tabs go code"},
		{"The user prefers tabs.", "user", "tabs"},
		{"For new services, Marcus now prefers Java over Kotlin.", "marcus", "java kotlin new services"},
		{"Marcus has come to find Jira too heavy and would rather use Linear.", "marcus", "jira heavy linear"},
		{"Marcus is a big fan of Nordic noir TV.", "marcus", "nordic noir tv"},
		{"Lena's manager thinks the monorepo is the right choice for the team.", "lena manager", "monorepo choice"},
		{"Tabs are better than spaces.", "", "tabs spaces"},
	} {
		p := parseOpinion(tc.text)
		if got := strings.Join(p.holder, " "); got != tc.holder {
			t.Errorf("%q: holder %q, want %q", tc.text, got, tc.holder)
		}
		var words []string
		for _, w := range aspectWords(p) {
			words = append(words, w.word)
		}
		if got := strings.Join(words, " "); got != tc.aspect {
			t.Errorf("%q: aspect words %q, want %q", tc.text, got, tc.aspect)
		}
	}
}
