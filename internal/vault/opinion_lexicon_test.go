package vault

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/lexicon"
	"pgregory.net/rapid"
)

// The lexicon's place in the opinion rules (#26, [sayOtherwise]): a word
// said otherwise re-affirms only where everything else agrees, and what
// WordNet itself calls alternatives never do.

// wordnetAlternatives are the alternatives gen wrote from WordNet beside
// the table: pairs of frequent nouns and verbs whose most frequent senses
// are two things of one kind.
func wordnetAlternatives(t testing.TB) [][3]string {
	f, err := os.Open("../lexicon/testdata/alternatives.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 3 && !strings.HasPrefix(fs[0], "#") {
			out = append(out, [3]string{fs[0], fs[1], fs[2]})
		}
	}
	if len(out) < 300 {
		t.Fatalf("%d alternatives", len(out))
	}
	return out
}

// Every pair of alternatives WordNet lists, swapped in an opinion with
// everything else equal, is a conflict at a high cosine and never the
// same at any cosine, in the singular and the plural, with any stance.
func TestAlternativesFromWordNetStillConflict(t *testing.T) {
	for name, cal := range calibrations(t) {
		for _, alt := range wordnetAlternatives(t) {
			a, b := alt[1], alt[2]
			var pairs [][2]string
			if alt[0] == "n" {
				pairs = [][2]string{
					{"Ana prefers " + a + " in the afternoon.", "Ana prefers " + b + " in the afternoon."},
					{"Ana likes " + a + "s on Sundays.", "Ana enjoys " + b + "s on Sundays."},
				}
			} else {
				pairs = [][2]string{{"Ana would rather " + a + " on Sundays.", "Ana prefers to " + b + " on Sundays."}}
			}
			for _, p := range pairs {
				for _, cos := range []float64{0, 1} {
					got := DecideOpinion(p[0], p[1], cos, cal)
					if got == OpinionSame || cos == 1 && got != OpinionConflict {
						t.Errorf("%s: the alternatives %q then %q at cos %.0f: %v", name, p[0], p[1], cos, got)
					}
				}
			}
		}
	}
}

// A pair the lexicon says is one word re-affirms with everything else
// equal (whatever the cosine), and never once a number, a name, a
// negation, a changed mind or another content word differs.
func TestPropLexiconPairsOnlyWhereAllElseAgrees(t *testing.T) {
	cals := calibrations(t)
	pairs := lexicon.Pairs()
	contexts := []string{"on Sundays", "at the gym", "for side projects", "during winter", "after dinner"}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(pairs).Draw(t, "pair")
		x, y := p[0], p[1]
		if rapid.Bool().Draw(t, "swap") {
			x, y = y, x
		}
		holder := rapid.SampledFrom(freshHolders).Draw(t, "holder")
		ctx := rapid.SampledFrom(contexts).Draw(t, "context")
		cos := rapid.SampledFrom([]float64{0, 0.5, 1}).Draw(t, "cos")
		old := holder + " likes " + x + " " + ctx + "."
		blocked := map[string]string{
			"number":   holder + " likes " + y + " " + ctx + " 3 times.",
			"name":     holder + " likes " + y + " with Zed " + ctx + ".",
			"negation": holder + " doesn't like " + y + " " + ctx + ".",
			"marker":   holder + " now likes " + y + " " + ctx + ".",
			"instead":  holder + " likes " + y + " " + ctx + " instead.",
			"added":    holder + " likes " + y + " " + ctx + " with friends.",
		}
		none := func(string) bool { return false }
		if elaborates(canonicalWords(fts.Words(x), true), canonicalWords(fts.Words(y), true), none) {
			// One word inflected (shake/shaking), or two stance words
			// (hate/detest): the literal rule's case, where a time word
			// of a changed mind says nothing.
			delete(blocked, "marker")
			delete(blocked, "instead")
		}
		for name, cal := range cals {
			for why, text := range blocked {
				if got := DecideOpinion(old, text, cos, cal); got == OpinionSame {
					t.Fatalf("%s: %s: %q then %q at cos %.1f: same", name, why, old, text, cos)
				}
			}
			// A number or name in the old one, the same in the new: the
			// words themselves still pair, the fixed ones must agree.
			numbered := holder + " likes " + x + " 2 times " + ctx + "."
			if got := DecideOpinion(numbered, holder+" likes "+y+" 3 times "+ctx+".", cos, cal); got == OpinionSame {
				t.Fatalf("%s: %q, another number: same", name, numbered)
			}
		}
	})
}

// How many of the table's pairs re-affirm in a plain restatement: nearly
// all (a lemma that is also a stance or function word, "have", "use", or
// one the literal channel already reads as another word, may not).
func TestLexiconPairsRestate(t *testing.T) {
	cal := calibrations(t)["static"]
	same, all := 0, 0
	for _, p := range lexicon.Pairs() {
		all++
		if DecideOpinion("Ana likes "+p[0]+" on Sundays.", "Ana enjoys "+p[1]+" on Sundays.", 0, cal) == OpinionSame {
			same++
		}
	}
	t.Logf("%d of %d pairs re-affirm", same, all)
	if same*10 < all*9 {
		t.Errorf("only %d of %d lexicon pairs re-affirm a plain restatement", same, all)
	}
}
