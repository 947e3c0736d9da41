package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Framing: the words of a question that say when something happened or
// that it was said, not what it was. "What kitchen appliance did I buy 10
// days ago?" is about a kitchen appliance; a memory of it says "bought a
// stand mixer", never "10 days ago", and "I mentioned that I…" frames a
// question about a memory the way no memory is written. Left in, such
// words are informative (few records hold "ago" or "mentioned") and pull
// the records that happen to hold them above the one asked about.
//
// The literal channel drops them from a query before it is cut into terms.
// The semantic channel still reads the whole question, and a filter on
// dates (since, until) is how a caller asks for a time span.
//
// Questions are framed too. A vault holds statements ("Max chose
// HubSpot"), so the words that make a question of one ("which CRM did we
// pick") are in almost no record, which gives them the most information of
// any query term: a record that answers the question would account for
// only part of it. The question word that opens a sentence (what, which,
// how many…) is dropped like the rest. The auxiliary and pronoun after it
// ("did I") are kept: dropping them too lost more than it gained on
// LongMemEval, whose records are a user's own words. Do-support is not:
// the first "do", "does" or "did" within the three words after a
// sentence's question word ("what port does postgres use", "how do I
// reset it") exists only because the sentence is a question. The
// statement that answers it has none ("postgres uses port 5432"), so left
// in it counts as a rare and informative word no answer holds. A later
// "do" is a verb ("what did I do") and stays.
//
// A phrase is a sequence of slots; a slot is a set of alternatives, each
// one or more words (space-separated), and "?" after a slot's closing
// bracket makes it optional. "#" stands for a number written in digits. A
// phrase starting with "^" only matches at the start of a sentence.
var framingPhrases = compileFraming([]string{
	// 10 days ago, a couple of weeks ago, two months ago.
	"[{count}] [{unit}] [ago]",
	// last week, this weekend, last Friday, next month.
	"[last|past|this|next|previous] [{when}]",
	// in the past month, over the last three weeks.
	"[in|during|over|within] [the] [past|last|previous] [{count}]? [{unit}]",
	// since the start of the year, from the beginning of this month.
	"[since|from] [the] [start|beginning] [of] [the|this] [year|month|week]",
	"[yesterday|today|tonight|recently|lately|ago]",
	// I mentioned that, you told me, we talked about, I've said.
	"[i|we|you|i've|we've|you've] [have|had]? [previously|earlier|once|already|just]? " +
		"[mentioned|told you|told me|said|talked about|discussed|brought up] [that|about|to you|to me]?",
	// do you remember, can you recall, remind me.
	"[do you|can you|did you|could you]? [still]? [remember|recall|remind me] [that|when|what|if|of]?",
	// What…, When…, How many…, Which… (opening a sentence).
	"^ [what|which|who|whom|whose|when|where|why|how|how much|how many|how long|how often|" +
		"what's|who's|where's|when's|how's]",
}, map[string]string{
	"count": "#|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|" +
		"a few|a couple|a couple of|couple of|several|few",
	"unit": "day|days|week|weeks|month|months|year|years",
	"when": "week|weekend|month|year|night|morning|afternoon|evening|time|" +
		"monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|fall|winter",
})

// questionWords open a question sentence; doSupportWords are the
// auxiliary a question adds to a statement, doSupportWindow how many words
// after the question word it may come (which port does, how many days did).
var (
	questionWords = map[string]bool{"what": true, "which": true, "who": true, "whom": true, "whose": true,
		"when": true, "where": true, "why": true, "how": true}
	doSupportWords  = map[string]bool{"do": true, "does": true, "did": true}
	doSupportWindow = 3
)

// withoutFraming returns the query with its framing phrases replaced by a
// space, and the phrases; or the query unchanged (and no phrases) when
// nothing but framing (and punctuation) would be left: a query of only
// "yesterday" still looks for the word.
func withoutFraming(query string) (string, []string) {
	words := framingWords(query)
	var b strings.Builder
	var phrases []string
	last, kept := 0, false // last: end of the text copied so far
	doSupport := 0         // words after a question word where do-support may come
	for i := 0; i < len(words); {
		atStart := i == 0 || sentenceBreak(query[words[i-1].end:words[i].start])
		if atStart {
			doSupport = 0
		}
		n := framingPhrases.longest(words[i:], atStart)
		switch {
		case n > 0 && atStart && questionWords[words[i].text]:
			doSupport = doSupportWindow
		case n == 0 && doSupport > 0 && doSupportWords[words[i].text]:
			n, doSupport = 1, 0
		case n == 0:
			doSupport = max(0, doSupport-1)
			kept = true
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(query))
		}
		b.WriteString(query[last:words[i].start])
		b.WriteByte(' ')
		last = words[i+n-1].end
		phrases = append(phrases, query[words[i].start:last])
		i += n
	}
	if last == 0 || !kept {
		return query, nil
	}
	b.WriteString(query[last:])
	return b.String(), phrases
}

// sentenceBreak reports whether the text between two words ends a
// sentence.
func sentenceBreak(between string) bool {
	return strings.ContainsAny(between, ".?!;:\n")
}

// framingWord is one word of a query, case-folded, with its byte span.
type framingWord struct {
	text       string
	start, end int
}

// framingWords cuts a query into words: runs of letters, digits and
// apostrophes (’ counts as '), lower-cased.
func framingWords(s string) []framingWord {
	var out []framingWord
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, newFramingWord(s, start, i))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, newFramingWord(s, start, len(s)))
	}
	return out
}

func newFramingWord(s string, start, end int) framingWord {
	w := s[start:end]
	if !isLowerASCII(w) {
		w = strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	}
	return framingWord{text: w, start: start, end: end}
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// framingSet is the compiled phrases, indexed by the words that can start
// one.
type framingSet struct {
	byFirst map[string][]framingPattern
}

type framingPattern struct {
	slots         framingSlots
	sentenceStart bool // only at the start of a sentence
}

type framingSlots []framingSlot

type framingSlot struct {
	alts     [][]string // each alternative: its words
	optional bool
}

// longest returns how many of words, from the first, the longest phrase
// covers (0: none starts there). atStart: words[0] opens a sentence.
func (fs framingSet) longest(words []framingWord, atStart bool) int {
	key := words[0].text
	if isDigits(key) {
		key = "#"
	}
	best := 0
	for _, p := range fs.byFirst[key] {
		if atStart || !p.sentenceStart {
			best = max(best, p.slots.match(words))
		}
	}
	return best
}

// match returns the most words p covers from words[0] (0: no match).
func (p framingSlots) match(words []framingWord) int {
	if len(p) == 0 {
		return 0
	}
	best := -1
	s := p[0]
	for _, alt := range s.alts {
		if !wordsStartWith(words, alt) {
			continue
		}
		if len(p) == 1 {
			best = max(best, len(alt))
			continue
		}
		if rest := p[1:].match(words[len(alt):]); rest > 0 || p[1:].allOptional() {
			best = max(best, len(alt)+rest)
		}
	}
	if s.optional {
		if rest := p[1:].match(words); rest > 0 {
			best = max(best, rest)
		}
	}
	return max(best, 0)
}

func (p framingSlots) allOptional() bool {
	for _, s := range p {
		if !s.optional {
			return false
		}
	}
	return true
}

func wordsStartWith(words []framingWord, alt []string) bool {
	if len(words) < len(alt) {
		return false
	}
	for i, w := range alt {
		if words[i].text != w && !(w == "#" && isDigits(words[i].text)) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// compileFraming parses the phrase notation above; {name} inside a slot
// expands to classes[name]. A malformed phrase is a programming error.
func compileFraming(phrases []string, classes map[string]string) framingSet {
	fs := framingSet{byFirst: map[string][]framingPattern{}}
	for _, ph := range phrases {
		var p framingPattern
		rest, atStart := strings.CutPrefix(ph, "^")
		p.sentenceStart = atStart
		for strings.TrimSpace(rest) != "" {
			rest = strings.TrimSpace(rest)
			end := strings.IndexByte(rest, ']')
			if rest[0] != '[' || end < 0 {
				panic("fts: malformed framing phrase " + ph)
			}
			body := rest[1:end]
			rest = rest[end+1:]
			s := framingSlot{}
			if strings.HasPrefix(rest, "?") {
				s.optional, rest = true, rest[1:]
			}
			for _, alt := range strings.Split(body, "|") {
				if name, ok := strings.CutPrefix(alt, "{"); ok {
					for _, a := range strings.Split(classes[strings.TrimSuffix(name, "}")], "|") {
						s.alts = append(s.alts, strings.Fields(a))
					}
					continue
				}
				s.alts = append(s.alts, strings.Fields(alt))
			}
			p.slots = append(p.slots, s)
		}
		// Index the pattern under every word that can start it: its first
		// slot's alternatives, and the next slot's while the ones before
		// are optional.
		for _, s := range p.slots {
			for _, alt := range s.alts {
				fs.byFirst[alt[0]] = appendPattern(fs.byFirst[alt[0]], p)
			}
			if !s.optional {
				break
			}
		}
	}
	return fs
}

// appendPattern adds p to list unless it is there already (a pattern can
// start with the same word through two slots).
func appendPattern(list []framingPattern, p framingPattern) []framingPattern {
	for _, q := range list {
		if &q.slots[0] == &p.slots[0] {
			return list
		}
	}
	return append(list, p)
}
