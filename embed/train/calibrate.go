package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compartment/compartment/embed"
)

// The calibration of a static model is fitted on sentence pairs made from
// the model's own material, WordNet 3.0 in the corpus cache (never from
// evaluation data). Each WordNet synset has a definition and usage
// examples, "the act of a …; \"he made a quick …\"", and the pairs are:
//
//   - unrelated: a usage example beside the lemmas and definition of
//     another synset drawn at random (fixed seed);
//   - same topic: a usage example beside its own synset's lemmas and
//     definition (two statements about one concept);
//   - paraphrase: a usage example beside itself with its lemma replaced by
//     another one-word lemma of the same synset (a synonym swap).
//
// From their cosine distributions:
//
//	cos_floor    = q_0.99(unrelated)          unrelated texts stay below it
//	cos_ceil     = q_0.50(paraphrase)         a typical synonym swap reaches it
//	same_topic   = q_0.50(same topic)         half of same-concept pairs reach it
//	same_meaning = q_0.05(paraphrase)         19 in 20 synonym swaps reach it
//
// (clamped so that cos_floor < same_topic ≤ same_meaning). The store
// never folds on similarity alone: same_meaning only opens the literal
// check, so a low quantile is safe there.
//
// The calibration's semantic weight is fitted apart, on the mined pairs
// the ranking itself is run over (weight.go).
const (
	calibrationSeed     = 20261201
	calibrationMaxPairs = 20000
)

// CalibrationStats are the pair counts and cosine quantiles a calibration
// was fitted from, for the build log and MODEL.md.
type CalibrationStats struct {
	Unrelated, SameTopic, Paraphrase []float64 // sorted cosines
}

// FitCalibration fits enc's calibration from WordNet in the corpus cache.
// A model trained on WordNet's example ↔ synset pairs (v2) passes the
// mined pairs it held back from training: then unrelated is a held-back
// pair's short side against another pair's long side and same topic a
// held-back pair itself, and WordNet gives only the synonym swaps.
func FitCalibration(cache string, enc embed.Encoder, held []Pair) (embed.Calibration, CalibrationStats, error) {
	var entries []wnEntry
	err := forEachSynset(filepath.Join(cache, "pkg", "wordnet-base"), func(s synset) {
		if e, ok := splitGloss(s); ok {
			entries = append(entries, e)
		}
	})
	if err != nil {
		return embed.Calibration{}, CalibrationStats{}, fmt.Errorf("train: calibration: %w", err)
	}
	if len(entries) < 100 {
		return embed.Calibration{}, CalibrationStats{}, fmt.Errorf("train: calibration: only %d WordNet synsets with examples", len(entries))
	}
	rng := rand.New(rand.NewPCG(calibrationSeed, 1))
	rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	entries = entries[:min(len(entries), calibrationMaxPairs)]
	var st CalibrationStats
	cos := func(a, b string) (float64, error) {
		docs, err := enc.EmbedDocuments([]string{a, b})
		if err != nil {
			return 0, err
		}
		return dot32(docs[0].Vectors[0], docs[1].Vectors[0]), nil
	}
	for i, e := range entries {
		other := entries[(i+1+rng.IntN(len(entries)-1))%len(entries)]
		u, err := cos(e.example, other.about())
		if err != nil {
			return embed.Calibration{}, st, err
		}
		t, err := cos(e.example, e.about())
		if err != nil {
			return embed.Calibration{}, st, err
		}
		st.Unrelated = append(st.Unrelated, u)
		st.SameTopic = append(st.SameTopic, t)
		if para, ok := e.synonymSwap(); ok {
			p, err := cos(e.example, para)
			if err != nil {
				return embed.Calibration{}, st, err
			}
			st.Paraphrase = append(st.Paraphrase, p)
		}
	}
	if len(held) > 1 {
		st.Unrelated, st.SameTopic = st.Unrelated[:0], st.SameTopic[:0]
		for i, p := range held {
			u, err := cos(p.A, held[(i+1)%len(held)].B)
			if err != nil {
				return embed.Calibration{}, st, err
			}
			t, err := cos(p.A, p.B)
			if err != nil {
				return embed.Calibration{}, st, err
			}
			st.Unrelated = append(st.Unrelated, u)
			st.SameTopic = append(st.SameTopic, t)
		}
	}
	slices.Sort(st.Unrelated)
	slices.Sort(st.SameTopic)
	slices.Sort(st.Paraphrase)
	if len(st.Paraphrase) < 100 {
		return embed.Calibration{}, st, fmt.Errorf("train: calibration: only %d paraphrase pairs", len(st.Paraphrase))
	}
	c := embed.Calibration{
		CosFloor:    Quantile(st.Unrelated, 0.99),
		CosCeil:     Quantile(st.Paraphrase, 0.50),
		SameTopic:   Quantile(st.SameTopic, 0.50),
		SameMeaning: Quantile(st.Paraphrase, 0.05),
	}
	round := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	c = embed.Calibration{CosFloor: round(c.CosFloor), CosCeil: round(c.CosCeil), SameMeaning: round(c.SameMeaning), SameTopic: round(c.SameTopic)}
	c.SameTopic = max(c.SameTopic, c.CosFloor+0.01)
	c.SameMeaning = max(c.SameMeaning, c.SameTopic)
	return c, st, c.Validate()
}

// wnEntry is one synset with a usage example that contains one of its
// lemmas.
type wnEntry struct {
	lemmas     []string
	definition string
	example    string
	lemma      string // the lemma the example contains
}

// about is the synset's lemmas and definition, as one text.
func (e wnEntry) about() string { return strings.Join(e.lemmas, ", ") + ": " + e.definition }

// synonymSwap replaces the example's lemma with another one-word lemma of
// the synset.
func (e wnEntry) synonymSwap() (string, bool) {
	for _, l := range e.lemmas {
		if l != e.lemma && !strings.Contains(l, " ") {
			return replaceWord(e.example, e.lemma, l), true
		}
	}
	return "", false
}

// splitGloss takes a synset's gloss apart: definition; "example"; ….
// It keeps the first example that contains a one-word lemma as a word.
func splitGloss(s synset) (wnEntry, bool) {
	parts := strings.Split(s.gloss, "; ")
	e := wnEntry{lemmas: s.lemmas, definition: strings.TrimSpace(parts[0])}
	if e.definition == "" || strings.HasPrefix(e.definition, "\"") {
		return wnEntry{}, false
	}
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		if !strings.HasPrefix(p, "\"") {
			continue
		}
		ex := strings.Trim(p, "\" ")
		for _, l := range s.lemmas {
			if !strings.Contains(l, " ") && slices.Contains(embed.StaticWords(ex), strings.ToLower(l)) {
				e.example, e.lemma = ex, l
				return e, true
			}
		}
	}
	return wnEntry{}, false
}

// replaceWord replaces whole-word occurrences of w in s (any case) by r.
func replaceWord(s, w, r string) string {
	f := strings.Fields(s)
	for i, x := range f {
		core := strings.TrimFunc(x, func(c rune) bool { return strings.ContainsRune(".,;:!?\"'()", c) })
		if strings.EqualFold(core, w) {
			f[i] = strings.Replace(x, core, r, 1)
		}
	}
	return strings.Join(f, " ")
}

func dot32(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// CalibrationMaterial says what a calibration was fitted on, for the
// calibration file.
const CalibrationMaterial = "WordNet 3.0 (wordnet-base in embed/train/corpus.lock): usage examples against random synsets (unrelated), their own synset (same topic) and a synonym swap (paraphrase); semantic_weight: those of the 4,096 mined pairs v2 holds back from training whose short side has at least 3 words, ranked by the product's search, at the best MRR@10 (embed/train/pairs.go, weight.go); see embed/train/calibrate.go"

// CalibrationMaterialHeld says what a model trained on mined pairs was
// calibrated on.
const CalibrationMaterialHeld = "4,096 mined pairs held back from training (embed/train/pairs.go: a pair's short side against its own long side for same topic, against the next held-back pair's for unrelated; semantic_weight: those of the same pairs whose short side has at least 3 words, ranked by the product's search, at the best MRR@10, embed/train/weight.go) and WordNet 3.0 synonym swaps (paraphrase); see embed/train/calibrate.go"

// Quantile is the q-quantile of sorted xs (nearest rank).
func Quantile(xs []float64, q float64) float64 {
	i := int(q*float64(len(xs)-1) + 0.5)
	return xs[min(max(i, 0), len(xs)-1)]
}
