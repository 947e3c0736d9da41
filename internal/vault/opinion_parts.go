package vault

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/lexicon"
)

// What an opinion is about. The store reads every opinion, by fixed
// rules and without the model, as three parts:
//
//	holder  who holds it: the words before the stance ("Marcus",
//	        "Lena's manager"; "I" and "the user" are one holder, the
//	        user). No stance word within the first [maxHolderWords]
//	        words: the holder is implicit (the user's own opinion).
//	stance  how it is held: the stance verb (prefers, likes, thinks,
//	        finds, would rather, is a fan of, wants, …), its negation
//	        (dislikes, doesn't like, no longer likes) and the judgement
//	        words of the object (good/right/sensible, bad/wrong/overkill).
//	object  the rest, in canonical words ([canonicalWords]): what is
//	        held and its context ("dark roast coffee", "Neovim for
//	        Kotlin work", "reviews before noon").
//
// The aspect of an opinion is its object's content words: those left once
// negation, comparison and degree words, prepositions, pronouns, hedges
// and generic context nouns ([aspectStop]) are gone. Two opinions are on
// the same aspect when their objects share one of those words, up to
// inflection or the WordNet lexicon ([lexicon.Same]), and the model's
// calibrated similarity puts them on the same topic ([DecideOpinion]): "Lena likes sparkling water with lunch" and
// "Lena prefers oat milk in her coffee" share a holder but no aspect word,
// so neither conflicts with the other, whatever the cosine.

// maxHolderWords bounds the holder: a stance word further into the claim
// is not the first verb after a name but part of what is held.
const maxHolderWords = 5

// opinionParts is an opinion as the store compares it.
type opinionParts struct {
	holder []string // canonical holder words; nil: implicit (the user)
	object []string // canonical object words, stance words gone
	fixed  map[string]bool
	// possessed are the words right after a possessive pronoun ("his
	// coffee black"): the head of an object with its complement after it.
	possessed map[string]bool
	// changed: the text says its holder's mind changed ([changeMarked]).
	changed bool
}

// parseOpinion splits an opinion into holder and object ([opinionParts]).
func parseOpinion(text string) opinionParts {
	words := opinionWords(text)
	p := opinionParts{fixed: fixedWords(text), possessed: possessedWords(words), changed: changeMarked(words)}
	at := holderEnd(words)
	if at < 0 {
		p.object = canonicalWords(words, true)
		return p
	}
	// A fronted phrase without its comma ("For Go code I prefer spaces")
	// belongs to the object: the holder is then the pronoun, or the one
	// word before the stance.
	pre, rest := words[:at], words[at:]
	if i := slices.IndexFunc(pre, func(w string) bool { return pronouns[w] }); i > 0 {
		rest, pre = append(slices.Clone(rest), pre[:i]...), pre[i:]
	} else if frontingWords[pre[0]] && len(pre) > 1 {
		rest, pre = append(slices.Clone(rest), pre[:len(pre)-1]...), pre[len(pre)-1:]
	}
	for _, w := range canonicalWords(pre, true) {
		if intensifiers[w] || holderAdverbs[w] {
			continue
		}
		if w == "i" || w == "me" {
			w = "user"
		}
		p.holder = append(p.holder, w)
	}
	p.object = ratherAsTo(rest, canonicalWords(rest, true))
	return p
}

// ratherAsTo writes the bare verb after "would rather" as the infinitive
// it is ("would rather pay cash" holds what "prefers to pay cash" holds):
// the object of a stance that opens with "rather" within its first
// three words gets a leading "to", a function word, so [consuming] reads
// the verb after it as it reads one after "prefers to".
func ratherAsTo(stance, object []string) []string {
	if len(object) == 0 || object[0] == "to" || object[0] == "not" || !slices.Contains(stance[:min(len(stance), 3)], "rather") {
		return object
	}
	return append([]string{"to"}, object...)
}

// holderEnd returns where the stance starts (the first stance word, a
// negation, or the "now", "used to", "stopped" or "has come to" of a
// changed mind within the first [maxHolderWords] words), or -1 when the
// claim names no holder.
func holderEnd(words []string) int {
	for i, w := range words {
		if i > maxHolderWords {
			break
		}
		_, contracted := cutNegation(w)
		changed := (w == "has" || w == "have" || w == "had") && i+1 < len(words) && changeVerbs[words[i+1]]
		if contracted || changed || negations[w] || w == "now" || anySameWord(w, stanceWords) || negativeStance(w) ||
			negativeStanceAt(words, i) || positiveStanceAt(words, i) || stoppedAt(words, i) || usedToAt(words, i) ||
			fts.SameWord(w, "want") {
			if i == 0 {
				return -1
			}
			return i
		}
	}
	return -1
}

// pronouns that hold an opinion.
var pronouns = setOf("i", "we", "you", "he", "she", "they")

// holderAdverbs may stand between a holder and the stance without being
// part of who holds it: "Paulina still prefers", "Signe generally
// likes", "Arjun honestly thinks". They say the opinion goes on, or
// hedge it; none says it changed (those end the holder: [holderEnd]).
var holderAdverbs = setOf("still", "also", "always", "generally", "usually", "normally", "typically", "mostly",
	"honestly", "frankly", "personally", "certainly", "definitely", "actually", "indeed", "sincerely", "simply")

// opinionWords are an opinion's words as the rules read them: the
// literal channel's words ([fts.Words]) with a fronted phrase moved to
// the end ([frontedOpinion]), a pronoun's contraction written out ("I'm"
// → "i am", "I'd" → "i would") and a discourse marker that only says the
// opinion is repeated dropped ([dropDiscourse]: "As I said, …", "…, as
// mentioned before").
func opinionWords(text string) []string {
	return dropDiscourse(expandContractions(fts.Words(frontedOpinion(text))))
}

// frontedOpinion is [frontedLast] for an opinion, where any short phrase
// before the first comma moves to the end when a holder and its stance
// follow it ("Downtown, Esther would rather take the tram" → "Esther
// would rather take the tram Downtown"), and a discourse marker there is
// left for [dropDiscourse]. Facts keep [frontedLast]: only an opinion's
// holder tells where its clause starts.
func frontedOpinion(text string) string {
	moved := frontedLast(text)
	if moved != strings.TrimSpace(text) {
		return moved
	}
	head, rest, ok := strings.Cut(moved, ",")
	if !ok || strings.TrimSpace(rest) == "" || appositive(rest) {
		return moved
	}
	hw := expandContractions(fts.Words(head))
	if len(hw) == 0 || len(hw) > maxFrontedWords || discourseAt(hw, 0) == len(hw) || holderEnd(hw) >= 0 ||
		slices.ContainsFunc(hw, func(w string) bool { return opinionFiller(w) || negations[w] }) {
		return moved
	}
	if holderEnd(expandContractions(fts.Words(rest))) <= 0 {
		return moved
	}
	return strings.TrimRightFunc(strings.TrimSpace(rest), unicode.IsPunct) + " " + strings.TrimSpace(head)
}

// maxFrontedWords bounds the phrase [frontedOpinion] moves.
const maxFrontedWords = 3

// contractions are a pronoun's forms with a verb joined on.
var contractions = map[string][]string{
	"i'm": {"i", "am"}, "i'd": {"i", "would"}, "i've": {"i", "have"}, "i'll": {"i", "will"},
	"we're": {"we", "are"}, "we'd": {"we", "would"}, "we've": {"we", "have"},
	"you're": {"you", "are"}, "you'd": {"you", "would"}, "you've": {"you", "have"},
	"they're": {"they", "are"}, "they'd": {"they", "would"}, "they've": {"they", "have"},
	"he's": {"he", "is"}, "she's": {"she", "is"}, "he'd": {"he", "would"}, "she'd": {"she", "would"},
}

// expandContractions writes out a pronoun's contraction (curly
// apostrophe or straight).
func expandContractions(words []string) []string {
	var out []string
	for i, w := range words {
		full, ok := contractions[strings.ReplaceAll(w, "’", "'")]
		if !ok {
			if out != nil {
				out = append(out, w)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(words)+1), words[:i]...)
		}
		out = append(out, full...)
	}
	if out == nil {
		return words
	}
	return out
}

// discourseMarkers say an opinion is being repeated, or frame it, and
// nothing of what is held: "as I said", "as mentioned", "to be honest".
// Each is a word sequence; a marker of saying may close with when it was
// said ([saidWhen]).
var discourseMarkers = [][]string{
	{"as", "i", "said"}, {"as", "i", "mentioned"}, {"as", "i", "have", "said"}, {"as", "i", "have", "mentioned"},
	{"as", "i", "told", "you"}, {"as", "i", "noted"}, {"like", "i", "said"}, {"as", "said"}, {"as", "mentioned"},
	{"as", "noted"}, {"as", "stated"}, {"as", "already", "mentioned"}, {"as", "already", "said"},
	{"as", "before"}, {"once", "again"}, {"again"}, {"to", "be", "honest"}, {"honestly"}, {"frankly"},
	{"personally"}, {"for", "the", "record"}, {"to", "repeat"}, {"to", "reiterate"}, {"just", "to", "repeat"},
}

// saidWhen may close a marker of saying: "as mentioned before".
var saidWhen = setOf("before", "earlier", "already", "above", "previously", "again")

// discourseAt returns how many words a discourse marker takes from
// words[i] on, 0 when none starts there.
func discourseAt(words []string, i int) int {
	for _, m := range discourseMarkers {
		if i+len(m) <= len(words) && slices.Equal(words[i:i+len(m)], m) {
			n := len(m)
			if m[len(m)-1] != "again" && i+n < len(words) && saidWhen[words[i+n]] {
				n++
			}
			return n
		}
	}
	return 0
}

// dropDiscourse drops the discourse markers that open an opinion or
// close it ("As I said, Rohan prefers …", "… window tables, as
// mentioned before"): a marker is no part of the holder or the object.
func dropDiscourse(words []string) []string {
	for n := discourseAt(words, 0); n > 0 && n < len(words); n = discourseAt(words, 0) {
		words = words[n:]
	}
	for i := max(0, len(words)-5); i < len(words); i++ {
		if n := discourseAt(words, i); n > 0 && i+n == len(words) && i > 0 {
			return words[:i]
		}
	}
	return words
}

// changeVerbs, after has/have/had, start a changed mind: "Marcus has come
// to find Jira too heavy", "has gone off testify".
var changeVerbs = setOf("come", "gone", "grown", "started", "begun", "become", "switched", "changed", "moved", "decided")

// positiveStanceAt reports whether a phrase that holds an opinion for its
// object starts at words[i]: "keen on", "fond of", "crazy about", "mad
// about", "passionate about", or "into" after a be-form, a negation or an
// intensifier ("is into jazz", "is not into horror films", "really into").
func positiveStanceAt(words []string, i int) bool {
	w, next, prev := words[i], "", ""
	if i+1 < len(words) {
		next = words[i+1]
	}
	if i > 0 {
		prev = words[i-1]
	}
	switch {
	case w == "keen" && next == "on", w == "fond" && next == "of":
		return true
	case aboutStance[w] && next == "about":
		return true
	case w == "into" && i > 0:
		return beForms[prev] || negations[prev] || intensifiers[prev] || prev == "isn't" || prev == "aren't" || prev == "am"
	}
	return false
}

var (
	// aboutStance words hold an opinion for what follows "about".
	aboutStance = setOf("crazy", "mad", "passionate", "enthusiastic", "nuts", "wild")
	beForms     = setOf("is", "are", "am", "was", "were", "be", "been")
	// stopVerbs end a stance: "has stopped liking", "quit", "gave up".
	stopVerbs = setOf("stopped", "quit", "ceased")
)

// stoppedAt reports whether a stance that has ended starts at words[i]:
// "stopped", "quit", "ceased", "gave up", "given up", "lost interest"
// ("Zainab has stopped liking Firefox", "Bertil has lost interest in
// pottery"): the opinion is now held against its object.
func stoppedAt(words []string, i int) bool {
	if stopVerbs[words[i]] {
		return true
	}
	next := ""
	if i+1 < len(words) {
		next = words[i+1]
	}
	return (words[i] == "gave" || words[i] == "given") && next == "up" || words[i] == "lost" && next == "interest"
}

// usedToAt reports whether "used to" of a past stance starts at words[i]
// ("Signe used to like cold brew"), not "is used to" (accustomed).
func usedToAt(words []string, i int) bool {
	return words[i] == "used" && i+1 < len(words) && words[i+1] == "to" && (i == 0 || !beForms[words[i-1]] && words[i-1] != "get" && words[i-1] != "got")
}

// fixedWords are the words of text that name or count something: written
// with a capital (not as the claim's first word) or holding a digit. A
// restatement may move other words ("coffee black" = "black coffee") but
// never these.
func fixedWords(text string) map[string]bool {
	out := map[string]bool{}
	first := true
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r, _ := utf8.DecodeRuneInString(w)
		if (unicode.IsUpper(r) && !first) || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			out[strings.ToLower(w)] = true
		}
		first = false
	}
	return out
}

// possessedWords are the words right after a possessive pronoun.
func possessedWords(words []string) map[string]bool {
	out := map[string]bool{}
	for i := 1; i < len(words); i++ {
		if possessives[words[i-1]] {
			out[words[i]] = true
		}
	}
	return out
}

var possessives = setOf("his", "her", "their", "my", "our", "your")

// sameHolder reports whether two opinions have one holder.
func sameHolder(a, b opinionParts) bool {
	if len(a.holder) != len(b.holder) {
		return false
	}
	for i := range a.holder {
		if !fts.SameWord(a.holder[i], b.holder[i]) {
			return false
		}
	}
	return true
}

// aspectStop are words of an object that say nothing about what it is
// about: degree and connecting words, and context nouns too generic to
// name an aspect ("for the team", "for most things").
var aspectStop = setOf("not", "over", "too", "and", "or", "but", "more", "less", "least", "very", "so", "just",
	"only", "also", "much", "many", "all", "any", "some", "lot", "lots", "thing", "stuff", "way", "ways",
	"team", "people", "everyone", "everything", "anything", "something", "one", "ones", "instead", "rather",
	// prepositions of time and place that are no [elaboration] word:
	// they open a context, and name nothing ("workouts before
	// breakfast", "jazz before dinner" share no aspect by "before").
	"before", "after", "during", "until", "till", "since", "between", "among", "around", "near", "under",
	"above", "below", "behind", "beside", "beyond", "within", "across", "along", "through", "throughout",
	"toward", "towards", "via", "per", "except", "upon", "onto")

// aspectWord is one content word of an object: whether it closes its
// phrase (a head: "code" in "Go code") or modifies the next content word
// ("code" in "code reviews"), and whether it names something.
type aspectWord struct {
	word        string
	head, fixed bool
}

// aspectWords are an object's content words ([opinionParts]), up to a
// clause that says why it is held ([reasonOpens]): a reason is not what
// the opinion is about. A word heads its phrase when no content word
// follows it, or when it is possessed ("his tea sweet").
func aspectWords(p opinionParts) []aspectWord {
	content := func(w string) bool {
		return p.fixed[w] || !aspectStop[w] && !elaboration[w] && !opinionFiller(w)
	}
	object := p.object
	for k := 1; k < len(object); k++ {
		if reasonOpens(object, k) || exampleOpens(object, k) {
			object = object[:k]
			break
		}
	}
	var out []aspectWord
	for i, w := range object {
		if content(w) {
			// A possessed word heads its phrase whatever follows: in
			// "his tea sweet" the complement comes after the head.
			head := i+1 == len(object) || !content(object[i+1]) || p.possessed[w]
			out = append(out, aspectWord{w, head, p.fixed[w]})
		}
	}
	return out
}

// sameAspect reports whether two opinions' objects share a content word,
// up to inflection: a name in any place, a common word in the same place
// of its phrase (head or modifier), so "tabs for Go code" and "code
// reviews before noon" are not about one thing; or two plain words the
// WordNet lexicon pairs, in any place ("payments by card", "paying in
// cash": [lexicon.Same]); and whether a shared word is a name.
func sameAspect(a, b opinionParts) (shared, named bool) {
	wb := aspectWords(b)
	for _, x := range aspectWords(a) {
		for _, y := range wb {
			if sameOpinionWord(x.word, y.word) && (x.fixed || y.fixed || x.head == y.head) ||
				!x.fixed && !y.fixed && lexicon.Same(x.word, y.word) {
				shared = true
				named = named || x.fixed && y.fixed
			}
		}
	}
	// A compound said as its act's verb with the modifier as its object
	// ("code reviews" / "reviewing code") holds one thing: the modifier
	// heads one phrase and modifies in the other, so no word meets its
	// like above.
	if !shared {
		shared = len(actCompounds(a.object, b.object, a, b)) > 0 || len(actCompounds(b.object, a.object, b, a)) > 0
	}
	return shared, named
}

// reopens reports whether the new opinion b says its holder's mind
// changed ([changeMarked]) about what the old opinion a holds: b's object
// holds a's first content word (what a holds, before its context), as a
// name in any place or a common word in the same place of its phrase,
// the way [sameAspect] matches. "Kwame likes pytest fixtures for test
// setup" then "Kwame has gone off pytest fixtures and now prefers plain
// factory functions" reopens the first; "Ivan now prefers tea in the
// morning" does not reopen "Ivan prefers running in the morning", which
// shares only when it is held. Or b holds something for the very purpose
// a holds its object for (a "for" phrase of the same content words: "Per
// likes Python for data work" then "Per has switched to Julia for data
// work"): what fills one role replaces what filled it, while many things
// are held at one time or place. It only ever turns an unrelated verdict
// into a conflict, a question for the writer: it never folds.
func reopens(a, b opinionParts) bool {
	if !b.changed {
		return false
	}
	fixed := func(w string) bool { return a.fixed[w] || b.fixed[w] }
	if purposeModifies(a, b, fixed) {
		return true
	}
	if pa, ok := purpose(a.object, fixed); ok {
		if pb, ok := purpose(b.object, fixed); ok && elaborates(pa, pb, fixed) {
			return true
		}
	}
	held := aspectWords(a)
	if len(held) == 0 {
		return false
	}
	x := held[0]
	for _, y := range aspectWords(b) {
		if sameOpinionWord(x.word, y.word) && (x.fixed || y.fixed || x.head == y.head) {
			return true
		}
	}
	return false
}

// purpose returns the words of an object's "for" phrase, what its held
// thing is for ("Python for data work": "data work"), when content words
// come both before and after the "for".
func purpose(object []string, fixed func(string) bool) ([]string, bool) {
	at := slices.Index(object, "for")
	if at < 0 {
		return nil, false
	}
	what := object[at+1:]
	return what, len(contentOnly(object[:at], fixed)) > 0 && len(contentOnly(what, fixed)) > 0
}

// restates reports whether b says what a says: the objects are the same
// words in the same order up to function words ([elaborates]), or
// become so when two neighbouring words of one are swapped where one side
// puts a complement after a possessed head ("likes his coffee black" =
// "prefers black coffee"; "milk chocolate" is not "chocolate milk"), or
// the possessed head moves after a complement of two words ("likes his
// eggs soft-boiled" = "prefers soft-boiled eggs"), none of them a name, a
// number, a negation or a comparison; or one
// says the other's last noun as a gerund with its object ([complements]).
func restates(a, b opinionParts) bool {
	fixed := func(w string) bool { return a.fixed[w] || b.fixed[w] }
	if elaborates(a.object, b.object, fixed) {
		return true
	}
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		obj := side[0].object
		for i := 0; i+1 < len(obj); i++ {
			if !movable(obj[i], side[0], side[1]) || !movable(obj[i+1], side[0], side[1]) ||
				!possessedIn(obj[i], a, b) && !possessedIn(obj[i+1], a, b) {
				continue
			}
			swapped := append([]string(nil), obj...)
			swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
			if elaborates(swapped, side[1].object, fixed) {
				return true
			}
			// A complement of two words ("his eggs soft boiled" = "soft
			// boiled eggs"): the possessed head moves after both.
			if i+2 < len(obj) && possessedIn(obj[i], a, b) && movable(obj[i+2], side[0], side[1]) {
				rotated := slices.Concat(obj[:i], obj[i+1:i+3], obj[i:i+1], obj[i+3:])
				if elaborates(rotated, side[1].object, fixed) {
					return true
				}
			}
		}
	}
	return complements(a, b, fixed)
}

// complements reports whether one object is the other with one noun said
// as a gerund with what it acts on right after it ("likes squash merges"
// = "prefers squash-merging pull requests", "likes rebases for hotfixes" =
// "likes rebasing feature branches for hotfixes"): every other word
// agrees in order ([elaborates]), the gerund is an inflection of the noun
// ([fts.SameWord]), and the words added are one to [maxComplementWords]
// plain content words directly after the gerund (its object, not a
// context: "reviewing at night" adds a when, and stays a conflict): no
// name or number, negation, comparison, degree or restricting word
// ([aspectStop]), and no stance.
//
// A gerund's object is what the noun already acts on, so nothing is
// replaced and no stance moves; but an added object is also how a refined
// or changed opinion can read, so the rule holds only while neither
// opinion says its holder's mind changed ([changeMarked]): "Marcus likes
// rebases" then "Marcus now prefers rebasing feature branches" stays a
// conflict for the writer to resolve.
func complements(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	short, long := a, b
	if len(contentOnly(a.object, fixed)) > len(contentOnly(b.object, fixed)) {
		short, long = b, a
	}
	x, y := contentOnly(short.object, fixed), contentOnly(long.object, fixed)
	m := len(y) - len(x)
	if len(x) == 0 || m < 1 || m > maxComplementWords {
		return false
	}
	plain := func(w string) bool {
		return !fixed(w) && movable(w, a, b) && !aspectStop[w] && !opinionFiller(w) && strings.IndexFunc(w, unicode.IsDigit) < 0
	}
	for k := range x {
		noun, gerund := x[k], y[k]
		if !slices.EqualFunc(x[:k], y[:k], sameOpinionWord) || !slices.EqualFunc(x[k+1:], y[k+1+m:], sameOpinionWord) ||
			fixed(noun) || strings.HasSuffix(noun, "ing") || !strings.HasSuffix(gerund, "ing") || !fts.SameWord(noun, gerund) {
			continue
		}
		added := y[k+1 : k+1+m]
		if !slices.ContainsFunc(added, func(w string) bool { return !plain(w) }) && directlyAfter(long.object, gerund, added) {
			return true
		}
	}
	return false
}

// movesModifier reports whether one opinion's object says the other's
// modifier after its head: as a phrase opened by a preposition ("morning
// yoga" = "yoga in the morning", "weekend markets" = "markets on the
// weekend"), or, where the head is said as the verb of its act (the
// lexicon pairs the two: [lexicon.Same]), as that verb's adverb ("early
// flights" = "fly early"). Nothing is added or taken away: the same
// content words, one neighbouring pair in the other order, every other
// word agreeing as in [elaborates]. Neither moved word may be a name or
// number, a negation, comparison or degree word, or a word of no aspect
// ("before", "most"); the verb's form holds only while neither opinion
// says its holder's mind changed, as [sayOtherwise] does.
func movesModifier(a, b opinionParts, fixed func(string) bool) bool {
	plain := func(w string) bool {
		return !fixed(w) && movable(w, a, b) && !aspectStop[w] && !opinionFiller(w) && strings.IndexFunc(w, unicode.IsDigit) < 0
	}
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		x, y := side[0].object, side[1].object
		for i := 0; i+1 < len(x); i++ {
			m, h := x[i], x[i+1]
			if !plain(m) || !plain(h) {
				continue
			}
			swapped := slices.Clone(x)
			swapped[i], swapped[i+1] = h, m
			if phraseAfter(y, h, m) && elaborates(swapped, y, fixed) {
				return true
			}
			if !a.changed && !b.changed && verbAdverb(contentOnly(swapped, fixed), contentOnly(y, fixed), h, m) {
				return true
			}
		}
	}
	return false
}

// actsOnModifier reports whether one opinion's object says the other's
// compound of a modifier and a noun of an act as that act's verb with the
// modifier as its object ("code reviews" = "to review code" = "reviewing
// code", "dog walks" = "walking dogs", "bike repairs" = "to repair
// bikes": [actCompounds]), every other word agreeing as in
// [elaborates]. Nothing is added or taken away, so it needs no cosine;
// it holds only while neither opinion says its holder's mind changed
// ([changeMarked]).
func actsOnModifier(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		for _, swapped := range actCompounds(side[0].object, side[1].object, a, b) {
			if elaborates(swapped, side[1].object, fixed) {
				return true
			}
		}
	}
	return false
}

// actCompounds returns x with each compound of a modifier and a noun
// ("code reviews") that y says as the noun's verb with the modifier as
// its object ("to review code", "reviewing code") written as y writes
// it. The noun and the verb are one word up to inflection
// ([sameOpinionWord]), the verb is said as one (after "to", or as a
// gerund: [gerund]; "essay grading" = "grading essays" too), and the
// modifier follows it at once. Two nouns swapped ("milk chocolate" /
// "chocolate milk", "coffee mornings" / "morning coffee") are no verb and
// its object, so they never meet it. Neither moved word may be a name or
// number, a negation, comparison or degree word, or a word of no aspect.
func actCompounds(x, y []string, a, b opinionParts) [][]string {
	plain := func(w string) bool {
		return !a.fixed[w] && !b.fixed[w] && movable(w, a, b) && !aspectStop[w] && !opinionFiller(w) &&
			strings.IndexFunc(w, unicode.IsDigit) < 0
	}
	var out [][]string
	for i := 0; i+1 < len(x); i++ {
		m, h := x[i], x[i+1]
		if !plain(m) || !plain(h) || strings.HasSuffix(h, "ing") && !gerund(h) {
			continue
		}
		for j := 0; j+1 < len(y); j++ {
			verb := j > 0 && y[j-1] == "to" || gerund(y[j])
			if verb && plain(y[j]) && plain(y[j+1]) && sameOpinionWord(y[j], h) && sameOpinionWord(y[j+1], m) {
				swapped := slices.Clone(x)
				swapped[i], swapped[i+1] = y[j], y[j+1]
				out = append(out, swapped)
			}
		}
	}
	return out
}

// oneMedium reports whether two objects hold works of one genre in one
// medium, the medium named otherwise: the same words before and after
// ([elaborates]), and between them a head of one or two words, each a
// word of one medium ([media]): "Nordic noir series" = "Nordic noir TV",
// "Spanish crime dramas" = "Spanish crime TV shows", "crime novels" =
// "crime fiction". Another medium ("Nordic noir podcasts", "crime
// films") is another thing held, never this. The head must follow at
// least one content word both share (the genre: what the opinion is
// about), and it may be a word written in capitals only where the table
// holds it ("TV"). It holds only while neither opinion says its holder's
// mind changed ([changeMarked]); the caller asks the model too, as for
// any object said otherwise.
func oneMedium(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	x, y := a.object, b.object
	for i := range x {
		for n := 1; n <= maxMediumWords && i+n <= len(x); n++ {
			kind := mediumOf(x[i : i+n])
			if kind == "" {
				continue
			}
			for j := range y {
				for m := 1; m <= maxMediumWords && j+m <= len(y); m++ {
					if mediumOf(y[j:j+m]) != kind || elaborates(x[i:i+n], y[j:j+m], fixed) ||
						len(contentOnly(x[:i], fixed)) == 0 || !elaborates(x[:i], y[:j], fixed) ||
						!elaborates(x[i+n:], y[j+m:], fixed) || !headEnds(x, i+n, fixed) || !headEnds(y, j+m, fixed) {
						continue
					}
					return true
				}
			}
		}
	}
	return false
}

// maxMediumWords bounds the head [oneMedium] reads as a medium ("TV
// shows").
const maxMediumWords = 2

// headEnds reports whether a head ends at words[k]: nothing follows, or
// a word that is no content word (a preposition, a clause).
func headEnds(words []string, k int, fixed func(string) bool) bool {
	return k == len(words) || !fixed(words[k]) && (elaboration[words[k]] || aspectStop[words[k]] || opinionFiller(words[k]))
}

// media are the media a work of a genre comes in, each with the words
// that name its works in everyday English: a television series is TV, a
// show, a drama; a novel is a book, fiction. Works of two media (a
// podcast, a film, a novel) are two things held, however near the model
// puts them (both bundled models put "podcasts" as near "series" as
// "TV": [TestMediaAlternativesNeverRestate]); words of several media
// ("documentary", "radio", "play", "program") are in none.
var media = map[string][]string{
	"television": {"tv", "television", "telly", "series", "show", "drama", "sitcom", "miniseries"},
	"film":       {"film", "movie", "cinema", "flick"},
	"book":       {"book", "novel", "fiction", "literature", "paperback"},
	"music":      {"music", "album", "song", "tune"},
	"food":       {"food", "cuisine", "dish", "cooking"},
}

// mediumOf returns the medium every word of words names ([media]), or
// "" when they name none or two.
func mediumOf(words []string) string {
	kind := ""
	for _, w := range words {
		k := ""
		for name, list := range media {
			if anySameWord(w, list) {
				k = name
			}
		}
		if k == "" || kind != "" && k != kind {
			return ""
		}
		kind = k
	}
	return kind
}

// judgesAlike reports whether two objects judge one thing with two
// phrases of one judgement ([judgements]): "YAML error-prone" = "YAML
// easy to get wrong", "the old laptop sluggish" = "the old laptop slow".
// The words before the phrases (what is judged: at least one content
// word) and after them agree as in [elaborates], and the phrases differ.
// Both are read in canonical words, so a negation is a "not" that must
// agree ("not error-prone" is never "easy to get wrong"), and "hard to get
// wrong" is no phrase of the table at all. It holds only while neither
// opinion says its holder's mind changed ([changeMarked]); the caller
// asks the model too, as for any object said otherwise.
func judgesAlike(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	x, y := a.object, b.object
	for _, pa := range judgementsIn(x) {
		for _, pb := range judgementsIn(y) {
			if pa.kind != pb.kind || slices.Equal(pa.words, pb.words) {
				continue
			}
			i, j := pa.at, pb.at
			if len(contentOnly(x[:i], fixed)) > 0 && elaborates(x[:i], y[:j], fixed) &&
				elaborates(x[i+len(pa.words):], y[j+len(pb.words):], fixed) {
				return true
			}
		}
	}
	return false
}

// judgementAt is one phrase of [judgements] found in an object.
type judgementAt struct {
	kind  int
	words []string
	at    int
}

// judgementsIn returns every phrase of [judgements] in object's words.
func judgementsIn(object []string) []judgementAt {
	var out []judgementAt
	for k, phrases := range judgementPhrases() {
		for _, p := range phrases {
			for i := 0; i+len(p) <= len(object); i++ {
				if slices.EqualFunc(object[i:i+len(p)], p, sameOpinionWord) {
					out = append(out, judgementAt{k, p, i})
				}
			}
		}
	}
	return out
}

// judgements are the everyday phrases that pass one judgement on a thing,
// each line one judgement: "error-prone" and "easy to get wrong" say the
// same of YAML; "slow" and "sluggish" the same of a laptop. Two lines
// are two judgements ("slow" is not "unreliable"), so an opinion that
// judges its object otherwise is never folded by them. General English;
// read in canonical words ([judgementPhrases]).
var judgements = [][]string{
	{"error-prone", "mistake-prone", "prone to errors", "prone to mistakes", "easy to get wrong", "easy to mess up", "hard to get right"},
	{"confusing", "hard to understand", "difficult to understand", "hard to follow", "difficult to follow"},
	{"clunky", "cumbersome", "unwieldy", "awkward to use", "hard to use", "difficult to use"},
	{"intuitive", "easy to use", "user-friendly", "straightforward to use"},
	{"slow", "sluggish"},
	{"unreliable", "flaky", "undependable"},
	{"reliable", "dependable"},
	{"expensive", "pricey", "costly", "overpriced", "too expensive"},
	{"cheap", "inexpensive", "affordable"},
	{"boring", "dull", "tedious"},
	{"verbose", "wordy", "long-winded"},
	{"noisy", "too loud"},
}

// judgementPhrases are [judgements] in the canonical words an object is
// compared in ([canonicalWords]: "easy to get wrong" → easy to get not).
var judgementPhrases = sync.OnceValue(func() [][][]string {
	out := make([][][]string, len(judgements))
	for k, line := range judgements {
		for _, p := range line {
			out[k] = append(out[k], canonicalWords(fts.Words(p), true))
		}
	}
	return out
})

// gerund reports whether w reads as the -ing form of a verb: it ends in
// "ing" after at least two letters and is none of the everyday nouns
// that only end so ([ingNouns]: morning, evening, spring, wedding, …).
func gerund(w string) bool {
	stem, ok := strings.CutSuffix(w, "ing")
	if !ok || len(stem) < 2 {
		return false
	}
	return !ingNouns[w] && !ingNouns[strings.TrimSuffix(w, "s")]
}

// ingNouns end in "ing" without being the act of a verb a compound's
// noun could name ("coffee mornings" is no "morning coffee").
var ingNouns = setOf("morning", "evening", "thing", "nothing", "something", "anything", "everything", "spring",
	"string", "ceiling", "building", "wedding", "ring", "king", "wing", "sibling", "pudding", "earring", "lightning",
	"herring", "duckling", "dumpling", "stocking", "awning", "offspring", "viking")

// inverts reports whether one object says the other's two phrases the
// other way round, the thing held in or on the other said as having it
// ("oat milk in coffee" = "coffee with oat milk", "pineapple on pizza" =
// "pizza with pineapple"): one object is X in/on Y, the other Y with X,
// each part agreeing as in [elaborates], with a content word in each.
// Nothing is added or taken away, so it needs no cosine.
func inverts(a, b opinionParts, fixed func(string) bool) bool {
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		x, y := side[0].object, side[1].object
		for k := 1; k+1 < len(x); k++ {
			if x[k] != "in" && x[k] != "on" {
				continue
			}
			for j := 1; j+1 < len(y); j++ {
				if y[j] == "with" && len(contentOnly(x[:k], fixed)) > 0 && len(contentOnly(x[k+1:], fixed)) > 0 &&
					elaborates(x[:k], y[j+1:], fixed) && elaborates(x[k+1:], y[:j], fixed) {
					return true
				}
			}
		}
	}
	return false
}

// swapsModifier reports whether two objects are the same content words
// in the same order but one, a modifier right before a head both share
// ("aisle seats" / "window seats", "morning runs" / "evening runs",
// "Vue components" / "React components"): one holder choosing another
// kind of one thing, a changed mind to ask the writer about. Neither
// differing word is a negation, comparison or degree word, nor a word of
// no aspect, nor found in the other object; the head is a content word
// right after it in both. It only ever makes a conflict, never a fold,
// and runs after the rules that pair words said otherwise.
func swapsModifier(x, y []string, fixed func(string) bool) bool {
	cx, cy := contentOnly(x, fixed), contentOnly(y, fixed)
	if len(cx) != len(cy) || len(cx) < 2 {
		return false
	}
	at := -1
	for i := range cx {
		if !sameOpinionWord(cx[i], cy[i]) {
			if at >= 0 {
				return false
			}
			at = i
		}
	}
	if at < 0 || at+1 == len(cx) {
		return false
	}
	m, n, h := cx[at], cy[at], cx[at+1]
	plain := func(w string) bool {
		return w != "not" && w != "over" && w != "too" && !aspectStop[w] && !opinionFiller(w)
	}
	if !plain(m) || !plain(n) || !plain(h) || slices.Contains(cy, m) || slices.Contains(cx, n) {
		return false
	}
	return adjacent(x, m, h) && adjacent(y, n, cy[at+1])
}

// adjacent reports whether words hold m right before h.
func adjacent(words []string, m, h string) bool {
	for i := 0; i+1 < len(words); i++ {
		if words[i] == m && words[i+1] == h {
			return true
		}
	}
	return false
}

// modifierPrepositions open the phrase a modifier becomes after its head.
var modifierPrepositions = setOf("in", "at", "on", "for", "of", "from", "with", "by")

// phraseAfter reports whether words hold h, then a preposition
// ([modifierPrepositions]), then m.
func phraseAfter(words []string, h, m string) bool {
	for j := 0; j+2 < len(words); j++ {
		if sameOpinionWord(words[j], h) && modifierPrepositions[words[j+1]] && sameOpinionWord(words[j+2], m) {
			return true
		}
	}
	return false
}

// verbAdverb reports whether the content words x (a head h moved before
// its modifier m) and y agree word for word but at h, which y says as a
// word the lexicon pairs with it and not as h itself.
func verbAdverb(x, y []string, h, m string) bool {
	if len(x) != len(y) || slices.ContainsFunc(y, func(w string) bool { return sameOpinionWord(w, h) }) {
		return false
	}
	paired := false
	for i := range x {
		switch {
		case x[i] == h && i+1 < len(x) && x[i+1] == m && lexicon.Same(h, y[i]):
			paired = true
		case !sameOpinionWord(x[i], y[i]):
			return false
		}
	}
	return paired
}

// directlyAfter reports whether the words added follow the word w at once
// in an object's words, with no function word between.
func directlyAfter(object []string, w string, added []string) bool {
	for i, o := range object {
		if o == w && slices.Equal(object[i+1:min(len(object), i+1+len(added))], added) {
			return true
		}
	}
	return false
}

// sameOpinionWord is [fts.SameWord] with two inflections of short words
// too, which the literal channel leaves alone (its inflections start at
// four common letters, where a prefix index can find them): the regular
// plural of a three-letter noun (bus/buses, tea/teas, car/cars: "would
// rather take the bus than a taxi" restates "prefers buses over taxis"),
// and the gerund of a four-letter verb that drops its e (hike/hiking,
// bake/baking, code/coding: "would rather hike" restates "prefers
// hiking"). Only the opinion rules compare with it; a fact's words agree
// by [fts.SameWord] alone.
func sameOpinionWord(a, b string) bool {
	if fts.SameWord(a, b) {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if strings.IndexFunc(a, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return false
	}
	switch len(a) {
	case 3:
		// "news" is no plural of "new".
		return b == a+"s" && b != "news" || b == a+"es" && strings.ContainsRune("sxz", rune(a[len(a)-1]))
	case 4:
		return a[3] == 'e' && !strings.ContainsRune("aeiou", rune(a[2])) && b == a[:3]+"ing"
	}
	return false
}

// maxComplementWords bounds the object a gerund may add ([complements]).
const maxComplementWords = 3

// changeMarked reports whether an opinion's words say its holder's mind
// changed: "now", "nowadays", "these days", "anymore", "any more", "no
// longer", "instead", "used to", "switched", "changed … mind", or a
// change verb after has/have/had ("has come to", "has gone off", "has
// grown tired of"). General English, read on the words as cut by the
// literal channel. Its presence is evidence of an update; its absence is
// no evidence of a restatement, so it only ever holds back a rule that
// would re-affirm.
func changeMarked(words []string) bool {
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "now" || w == "nowadays" || w == "anymore" || w == "instead" || w == "switched" || stoppedAt(words, i),
			w == "these" && next == "days",
			w == "any" && next == "more",
			w == "no" && next == "longer",
			w == "used" && next == "to",
			(w == "changed" || w == "change") && slices.Contains(words[i+1:], "mind"),
			(w == "has" || w == "have" || w == "had") && changeVerbs[next]:
			return true
		}
	}
	return false
}

func possessedIn(w string, a, b opinionParts) bool { return a.possessed[w] || b.possessed[w] }

// movable reports whether a restatement may move w: not a negation,
// comparison or degree word, and not a name or number in either opinion.
func movable(w string, a, b opinionParts) bool {
	return w != "not" && w != "over" && w != "too" && !elaboration[w] && !a.fixed[w] && !b.fixed[w]
}

// sayOtherwise reports whether two objects are the same words in the same
// order once general English knowledge ([lexicon.Same], from WordNet) is
// allowed to pair a word of one with a word of the other, or with a verb
// and its particle ("trains over flights" = "train over fly", "nightly
// backups" = "nightly backing up"): every other content word agrees as in
// [elaborates], and at least one pair needed the lexicon. It is the
// [elaborates] rule with a dictionary, so it too needs no cosine, and it
// holds only where everything else already agrees:
//
//   - a word paired by the lexicon is a plain word: no name or number
//     (a capital or a digit), no negation, comparison or degree word;
//   - neither opinion says its holder's mind changed ([changeMarked]);
//   - the stance agrees: a negative stance is a "not" among the words.
//
// The lexicon never pairs two alternatives (tea/coffee, morning/evening:
// two things of one kind in WordNet), so what a changed mind swaps stays
// a conflict.
func sayOtherwise(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	x, y := contentOnly(a.object, fixed), contentOnly(b.object, fixed)
	plain := func(w string) bool {
		return !fixed(w) && movable(w, a, b) && !aspectStop[w] && !negations[w] && strings.IndexFunc(w, unicode.IsDigit) < 0
	}
	// match aligns x[i:] with y[j:]; the words are few, so it tries each
	// way in turn.
	var match func(i, j int, lexical bool) bool
	match = func(i, j int, lexical bool) bool {
		switch {
		case i == len(x) || j == len(y):
			return i == len(x) && j == len(y) && lexical
		case sameOpinionWord(x[i], y[j]) && match(i+1, j+1, lexical):
			return true
		case !plain(x[i]) || !plain(y[j]):
			return false
		case lexicon.Same(x[i], y[j]) && match(i+1, j+1, true):
			return true
		case j+1 < len(y) && plain(y[j+1]) && lexicon.Same(x[i], y[j]+" "+y[j+1]) && match(i+1, j+2, true):
			return true
		}
		return i+1 < len(x) && plain(x[i+1]) && lexicon.Same(x[i]+" "+x[i+1], y[j]) && match(i+2, j+1, true)
	}
	return match(0, 0, false)
}

// overturns reports whether the opinion b prefers something over what a
// holds: b's object compares "X over Y" (over, than, rather than), and Y
// is how a's object starts, while a neither negates nor already compares
// it ("Kofi prefers rebasing to keep history linear" then "Kofi now
// prefers merge commits over rebasing"). That is a changed mind whatever
// the cosine (the model puts such pairs apart: the new object leads with
// other words), so the store returns it as a conflict for the writer to
// resolve; it never supersedes on it.
func overturns(a, b opinionParts, fixed func(string) bool) bool {
	at := slices.Index(b.object, "over")
	if at < 1 || slices.Contains(b.object[:at], "not") || slices.Contains(a.object, "not") || slices.Contains(a.object, "over") {
		return false
	}
	var compared []string
	for _, w := range b.object[at+1:] {
		if elaboration[w] && !fixed(w) {
			break
		}
		compared = append(compared, w)
	}
	held := contentOnly(a.object, fixed)
	before := contentOnly(b.object[:at], fixed)
	if len(compared) == 0 || len(held) < len(compared) || len(before) == 0 {
		return false
	}
	if !slices.EqualFunc(held[:len(compared)], compared, sameOpinionWord) {
		return false
	}
	// "prefers rebasing over merging" restating "prefers rebasing" keeps
	// the old object first: no change.
	return !sameOpinionWord(before[0], held[0])
}

// givesReason reports whether one opinion is the other with a clause
// added at the end that says why it is held: "Oona thinks microservices
// add too much overhead" and "… too much overhead for what they give",
// "Lena prefers trains because they are calm"; or one that gives
// examples of it ("Farah loves Thai food, especially green curry"). A
// reason or an example leaves what is held, and how, as it was, so the
// two are one opinion, whichever of them carries the clause. It holds
// only where nothing else can have moved:
//
//   - every content word of the shorter object is the longer one's,
//     in order, before the clause ([elaborates]);
//   - a reason opens with "because", with a preposition and a wh-word
//     ("for what they give", "for how little it costs"), or with "since"
//     or "as" and a pronoun for the thing held ("since they leave time
//     to think"): a clause of reason or worth, never a context that
//     narrows the object ("for small services", "in the evening", "as
//     her editor", "since the move");
//   - a reason holds at most [maxReasonWords] words, none of them a
//     name or number, a negation (a negative stance or judgement is one:
//     [canonicalWords]) or a comparison;
//   - examples open with "especially", "particularly", "including",
//     "such as", "for example", … ([exampleOpens]) and hold at most
//     [maxExampleWords] words, which may name things but hold no number,
//     negation, comparison or exception ([plainExample]);
//   - neither opinion says its holder's mind changed ([changeMarked]).
func givesReason(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		short, long := side[0].object, side[1].object
		if len(contentOnly(short, fixed)) == 0 {
			continue
		}
		for k := 1; k < len(long); k++ {
			clause := reasonOpens(long, k) && plainReason(long[k:], fixed) || exampleOpens(long, k) && plainExample(long[k:])
			if clause && elaborates(short, long[:k], fixed) {
				return true
			}
		}
	}
	return false
}

// maxReasonWords bounds the clause [givesReason] lets in.
const maxReasonWords = 8

// reasonOpens reports whether a clause of reason or worth starts at
// words[k]: "because"; a preposition followed by a wh-word; or "since"
// or "as" followed by a pronoun for the thing held ("since they leave
// time to think", "as it keeps things simple": not "since the move",
// which says when, nor "as her editor", which narrows the object).
func reasonOpens(words []string, k int) bool {
	if words[k] == "because" {
		return true
	}
	if k+1 >= len(words) {
		return false
	}
	next := words[k+1]
	return reasonPrepositions[words[k]] && (next == "what" || next == "how") ||
		(words[k] == "since" || words[k] == "as") && heldPronouns[next]
}

var (
	// reasonPrepositions may open a clause of worth with a wh-word: "for
	// what they give", "given how little it costs".
	reasonPrepositions = setOf("for", "given")
	// heldPronouns stand for the thing an opinion holds.
	heldPronouns = setOf("it", "they", "this", "these", "those", "that")
)

// exampleOpens reports whether a clause that gives examples of the thing
// held starts at words[k]: "especially", "particularly", "notably",
// "including", "such as", "for example", "for instance", "in particular"
// ("loves Thai food, especially green curry", "likes board games such as
// chess"). An example says what the holder has in mind; it holds what
// the words before it hold.
func exampleOpens(words []string, k int) bool {
	switch words[k] {
	case "especially", "particularly", "notably", "including":
		return true
	}
	if k+1 >= len(words) {
		return false
	}
	next := words[k+1]
	return words[k] == "such" && next == "as" || words[k] == "for" && (next == "example" || next == "instance") ||
		words[k] == "in" && next == "particular"
}

// maxExampleWords bounds the clause of examples [givesReason] lets in.
const maxExampleWords = 6

// plainExample reports whether a clause of examples is short and holds no
// number, negation, comparison or exception; a name may be an example
// ("such as Catan"), since it only says which of the thing held.
func plainExample(clause []string) bool {
	if len(clause) > maxExampleWords {
		return false
	}
	for _, w := range clause {
		if w == "not" || w == "over" || w == "rather" || w == "instead" || w == "except" || w == "but" || w == "too" ||
			strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return false
		}
	}
	return true
}

// plainReason reports whether a clause is short and holds no name or
// number, negation or comparison.
func plainReason(clause []string, fixed func(string) bool) bool {
	if len(clause) > maxReasonWords {
		return false
	}
	for _, w := range clause {
		if fixed(w) || w == "not" || w == "over" || w == "rather" || w == "instead" ||
			strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return false
		}
	}
	return true
}

// sharesModifierOnly reports whether two opinions of one holder hold two
// things that share nothing but a modifier: "sourdough baking" /
// "sourdough pizza", "summer festivals" / "summer salads", "green tea" /
// "green walls in the kitchen". Every word the objects share is a
// modifier before the head of what each holds ([heldPhrase]), and the
// heads differ: not a form of one word, not a pair of the lexicon
// ([lexicon.Same]), not two things of one kind ([lexicon.Kind]: "morning
// coffee" / "morning tea" is a choice the writer makes). A shared context
// is no such modifier (another thing in the same context may replace
// what was held there), nor is a possessed head ("likes his steak rare"
// / "… well-done"). A name or number held, a negation, a comparison, a
// degree ("too") or a changed mind ([changeMarked]) keeps the conflict.
// It only ever turns a conflict into two opinions that stand, never a
// fold.
func sharesModifierOnly(a, b opinionParts, fixed func(string) bool) bool {
	if a.changed || b.changed {
		return false
	}
	for _, w := range append(slices.Clone(a.object), b.object...) {
		if w == "over" || w == "not" || w == "too" || a.possessed[w] || b.possessed[w] {
			return false
		}
	}
	ha, hb := heldPhrase(a.object, fixed), heldPhrase(b.object, fixed)
	if len(ha) < 2 && len(hb) < 2 || len(ha) == 0 || len(hb) == 0 {
		return false
	}
	for _, w := range append(slices.Clone(ha), hb...) {
		if fixed(w) || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return false
		}
	}
	x, y := ha[len(ha)-1], hb[len(hb)-1]
	if sameOpinionWord(x, y) || lexicon.Same(x, y) {
		return false
	}
	if _, kind := lexicon.Kind(x, y); kind {
		return false
	}
	return onlyModifies(a.object, ha, b.object, hb, fixed) && onlyModifies(b.object, hb, a.object, ha, fixed)
}

// onlyModifies reports whether every content word of object that the
// other object holds anywhere is a modifier (a word before the head) of
// both held phrases, and at least one is.
func onlyModifies(object, held, other, otherHeld []string, fixed func(string) bool) bool {
	in := func(words []string, w string) int {
		return slices.IndexFunc(words, func(o string) bool { return sameOpinionWord(w, o) })
	}
	shared := 0
	for _, w := range contentOnly(object, fixed) {
		if in(contentOnly(other, fixed), w) < 0 || elaboration[w] {
			continue
		}
		i, j := in(held, w), in(otherHeld, w)
		if i < 0 || j < 0 || i == len(held)-1 || j == len(otherHeld)-1 {
			return false
		}
		shared++
	}
	return shared > 0
}

// heldPhrase is the content words of what an object holds: from its first
// content word up to the first word that opens a context phrase
// ([frontingWords]: "in the kitchen", "for data work", "on planes") or is
// an adverb of place or time after its head ([contextAdverbs]: "trams
// downtown", "climbing indoors"), without the aspect's stop words. Only
// the last is its head.
func heldPhrase(object []string, fixed func(string) bool) []string {
	var out []string
	for _, w := range object {
		switch {
		case len(out) > 0 && (frontingWords[w] || contextAdverbs[w]) && !fixed(w):
			return out
		case fixed(w) || !aspectStop[w] && !elaboration[w] && !opinionFiller(w):
			out = append(out, w)
		}
	}
	return out
}

// contextAdverbs say where or when a thing is held, after its head, as a
// context phrase does: "trams downtown" is trams in one part of town, not
// a kind of downtown.
var contextAdverbs = setOf("downtown", "uptown", "midtown", "indoors", "outdoors", "abroad", "overseas", "upstairs",
	"downstairs", "home", "nearby", "locally", "remotely", "early", "late", "daily", "weekly", "nightly", "today", "tonight")

// purposeModifies reports whether one opinion's purpose (its "for"
// phrase: [purpose]) is said by the other as the modifier right before
// the head of what it holds ([heldPhrase]): "sticky notes for reminders"
// and "a reminders app", "spreadsheets for budgeting" and "the budgeting
// app". Both hold something for one purpose, as two "for" phrases of the
// same words do ([reopens]).
func purposeModifies(a, b opinionParts, fixed func(string) bool) bool {
	for _, side := range [][2]opinionParts{{a, b}, {b, a}} {
		pa, ok := purpose(side[0].object, fixed)
		if !ok || slices.Contains(side[1].object, "for") {
			continue
		}
		pc, held := contentOnly(pa, fixed), heldPhrase(side[1].object, fixed)
		if len(pc) == 0 || len(held) <= len(pc) {
			continue
		}
		mods := held[len(held)-1-len(pc) : len(held)-1]
		if slices.EqualFunc(pc, mods, sameOpinionWord) {
			return true
		}
	}
	return false
}
