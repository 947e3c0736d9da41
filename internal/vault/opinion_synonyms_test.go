package vault

import (
	"testing"

	"github.com/compartment/compartment/embed"
)

// Why "same aspect" and "same stance" do not compare words by the model's
// word-level similarity (#26): with the bundled static models, the words a
// restatement swaps (flights/fly, series/TV, merges/merging) are further
// apart than the words a changed mind swaps (morning/evening, long/short,
// tea/coffee, open/closed), so any threshold that lets the synonyms
// through folds the updates. The same holds for whole sentences: the
// three restatements the store keeps apart are less similar than the
// changed minds it must never fold. When a model separates them, this
// test fails, and the lever is worth another look.
func TestWordSimilarityRanksAlternativesAboveSynonyms(t *testing.T) {
	synonyms := [][2]string{{"flights", "fly"}, {"series", "TV"}, {"merges", "merging"}}
	alternatives := [][2]string{{"morning", "evening"}, {"long", "short"}, {"tea", "coffee"}, {"open", "closed"}}
	restated := [][2]string{
		{"Marcus prefers trains over flights within Scandinavia.", "Within Scandinavia, Marcus would rather take the train than fly."},
		{"Marcus enjoys Nordic noir series.", "Marcus is a big fan of Nordic noir TV."},
		{"Marcus likes squash merges.", "Marcus prefers squash-merging pull requests."},
	}
	changed := [][2]string{
		{"Marcus prefers dark roast coffee.", "Marcus now prefers light roast coffee."},
		{"Marcus prefers running in the morning.", "Marcus now prefers running in the evening."},
	}
	for _, open := range []func() (embed.Encoder, error){embed.OpenStatic, embed.OpenStaticV2} {
		enc, err := open()
		if err != nil {
			t.Fatal(err)
		}
		name := enc.Info().Name
		cos := func(a, b string) float64 {
			d, err := enc.EmbedDocuments([]string{a, b})
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for i, x := range d[0].Vectors[0] {
				s += float64(x) * float64(d[1].Vectors[0][i])
			}
			return s
		}
		most := func(pairs [][2]string) (float64, [2]string) {
			best, at := -2.0, [2]string{}
			for _, p := range pairs {
				if c := cos(p[0], p[1]); c > best {
					best, at = c, p
				}
			}
			return best, at
		}
		least := func(pairs [][2]string) (float64, [2]string) {
			worst, at := 2.0, [2]string{}
			for _, p := range pairs {
				if c := cos(p[0], p[1]); c < worst {
					worst, at = c, p
				}
			}
			return worst, at
		}
		syn, s := most(synonyms)
		alt, a := most(alternatives)
		t.Logf("%s: closest synonyms %v %.2f, closest alternatives %v %.2f", name, s, syn, a, alt)
		if syn >= alt {
			t.Errorf("%s: the synonyms %v (%.2f) are as close as the alternatives %v (%.2f): a word-level lever may now be safe", name, s, syn, a, alt)
		}
		re, r := most(restated)
		ch, c := least(changed)
		t.Logf("%s: most similar restatement %.3f, least similar changed mind %.3f", name, re, ch)
		if re >= ch {
			t.Errorf("%s: the restatement %q (%.3f) is as similar as the changed mind %q (%.3f)", name, r[1], re, c[1], ch)
		}
	}
}
