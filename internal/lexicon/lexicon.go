// Package lexicon is general English word knowledge the store's opinion
// rules may use: which two words say one thing. It is a table generated
// from WordNet 3.0 ([table.txt], with WordNet's license; gen/ writes it)
// and nothing else: no word of any evaluation set went into it.
//
// Two words are the same ([Same]) when, after their inflections are
// undone (flights → flight, flew → fly, backing up → back up), WordNet
// holds one of:
//
//   - a noun that names the act, event or process of a verb, as a form of
//     that word: flight ↔ fly, commuting ↔ commute; or a verb and its
//     particle written as one noun: backup ↔ back up, setup ↔ set up;
//   - two lemmas of one synset that is the most frequent sense of both:
//     film ↔ movie, standpoint ↔ viewpoint.
//
// Never two alternatives: a pair whose words are, in any of their three
// most frequent senses, two different things of one kind (tea and
// coffee, morning and evening: one direct hypernym) is not in the table.
// The table also groups frequent nouns by kind ([Kind]: tea and coffee are
// beverages), for a hint that a newer choice may update an older one, and
// holds each word's relatives ([Related]: teacher for teach), which recall
// may count as weaker evidence and the store never reads.
//
// The table knows words, not names: the store never asks it about a word
// written with a capital or holding a digit.
package lexicon

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

//go:generate go run ./gen -wordnet /usr/share/wordnet -out table.txt -fixture testdata/alternatives.txt

// (make lexicon runs the same with WORDNET=dir for another copy.)

//go:embed table.txt
var table string

type lexicon struct {
	pairs   map[[2]string]byte // sorted lemma pair → kind ('d' or 's')
	lemmas  map[string]bool
	irreg   map[string][]string // irregular form → its lemmas
	kinds   map[string][]string // noun → the kinds its most frequent sense is directly of
	related map[string][]string // lemma → its relatives, the f lines ([Related])

	memo     sync.Map // word → its bases
	memoized atomic.Int64
}

var load = sync.OnceValue(func() *lexicon {
	l := &lexicon{pairs: map[[2]string]byte{}, lemmas: map[string]bool{}, irreg: map[string][]string{}, kinds: map[string][]string{},
		related: map[string][]string{}}
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[0] == "k" {
			for _, w := range f[2:] {
				l.kinds[w] = append(l.kinds[w], f[1])
				l.lemmas[w] = true
			}
			continue
		}
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		switch f[0] {
		case "x":
			l.irreg[f[1]] = append(l.irreg[f[1]], f[2])
		case "f":
			// Relatives only: never the same word to the store, so
			// their lemmas stay out of what Same and Kind know.
			l.related[f[1]] = append(l.related[f[1]], f[2])
			l.related[f[2]] = append(l.related[f[2]], f[1])
		default:
			l.pairs[[2]string{f[1], f[2]}] = f[0][0]
			l.lemmas[f[1]], l.lemmas[f[2]] = true, true
		}
	}
	return l
})

// Same reports whether two words (or a verb and its particle, written
// with a space: "backing up") say one thing by the table. Case is
// ignored; a word the table does not know is the same as nothing.
func Same(a, b string) bool {
	l := load()
	for _, x := range l.bases(a) {
		for _, y := range l.bases(b) {
			key := [2]string{min(x, y), max(x, y)}
			if _, ok := l.pairs[key]; ok && x != y {
				return true
			}
		}
	}
	return false
}

// Kind reports whether two nouns are two different things of one kind
// (tea and coffee, both a beverage in their most frequent sense; autumn
// and spring), and names the kind ("beverage"). Two such words are
// alternatives, never the same: a choice of one may replace a choice of
// the other, which only the writer can say, so a caller may use this for
// a hint and nothing more.
func Kind(a, b string) (string, bool) {
	l := load()
	if Same(a, b) {
		return "", false
	}
	for _, x := range l.bases(a) {
		for _, y := range l.bases(b) {
			if x == y {
				return "", false // one word
			}
			for _, k := range l.kinds[x] {
				if slices.Contains(l.kinds[y], k) {
					name, _, _ := strings.Cut(k, ".")
					return strings.ReplaceAll(name, "_", " "), true
				}
			}
		}
	}
	return "", false
}

// Related returns the relatives of a word by the table: frequent words
// of its family that are not the same word to the store (invitations →
// invite, belief → believe; never two alternatives, and one hop
// only: employee → employ, not employer). A relative is weaker evidence
// than the word itself, for recall; it never makes two texts say the same
// thing ([Same] does not pair them). Case is ignored; nil for a word the
// table does not know.
func Related(w string) []string {
	l := load()
	bases := l.findBasesIn(w, func(b string) bool { return l.related[b] != nil })
	var out []string
	for _, b := range bases {
		for _, o := range l.related[b] {
			// A relative that is the same word in some inflection
			// (lodgings → lodging ↔ lodge) is Same's, not a relative.
			if !Same(w, o) && !slices.Contains(bases, o) && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}

// Known reports whether the table holds w in some form.
func Known(w string) bool { return len(load().bases(w)) > 0 }

// bases are the table's lemmas w may be an inflection of: WordNet's own
// detachment rules (morphy) and its irregular forms, a doubled final
// consonant undone (running → run), a phrase's first word inflected and
// its particle kept ("backing up" → back_up).
func (l *lexicon) bases(w string) []string {
	if b, ok := l.memo.Load(w); ok {
		return b.([]string)
	}
	out := l.findBases(w)
	if l.memoized.Add(1) <= maxMemo {
		l.memo.Store(w, out)
	}
	return out
}

// maxMemo bounds how many words' bases a process remembers: the store
// asks about the same few words again and again (every candidate of
// every opinion), a server for a long time.
const maxMemo = 1 << 16

func (l *lexicon) findBases(w string) []string {
	return l.findBasesIn(w, func(b string) bool { return l.lemmas[b] })
}

// findBasesIn is findBases over the lemmas known accepts.
func (l *lexicon) findBasesIn(w string, known func(string) bool) []string {
	w = strings.ToLower(strings.TrimSpace(w))
	head, particle, phrase := strings.Cut(w, " ")
	if phrase && (strings.Contains(particle, " ") || particle == "") {
		return nil
	}
	var out []string
	for _, h := range forms(head) {
		for _, base := range append([]string{h}, l.irreg[h]...) {
			if phrase {
				base += "_" + particle
			}
			if known(base) && !slices.Contains(out, base) {
				out = append(out, base)
			}
		}
	}
	return out
}

// detach are morphy's suffix rules for nouns and verbs.
var detach = [][2]string{{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"},
	{"men", "man"}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}}

// forms are w and what each suffix rule leaves of it.
func forms(w string) []string {
	out := []string{w}
	for _, r := range detach {
		stem, ok := strings.CutSuffix(w, r[0])
		if !ok || len(stem) < 2 {
			continue
		}
		out = append(out, stem+r[1])
		// running → runn → run, stopped → stopp → stop
		if n := len(stem); r[1] == "" && n >= 3 && stem[n-1] == stem[n-2] && !strings.ContainsRune("aeiou", rune(stem[n-1])) {
			out = append(out, stem[:n-1])
		}
	}
	return out
}

// Pairs are the table's pairs of lemmas, a verb and its particle written
// with a space ("back up"): for the tests of the rules that use it.
func Pairs() [][2]string {
	l := load()
	out := make([][2]string, 0, len(l.pairs))
	for k := range l.pairs {
		out = append(out, [2]string{strings.ReplaceAll(k[0], "_", " "), strings.ReplaceAll(k[1], "_", " ")})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	return out
}
