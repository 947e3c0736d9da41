package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// answerKind is the kind of answer a question's wh-phrase asks for, when
// it is one a record's words can be checked for: a question about a time
// is answered by a date, a weekday or a time word, one about a quantity by
// a number, one about a price by an amount of money, one about a code or a
// port by something written with digits or as an address. A record about
// the question's subject that holds no expression of the kind asked
// ("When is Henrik's birthday?": "Henrik is an electrician in Oslo")
// shares the subject and not the answer (rank.AnswerFactor).
type answerKind uint8

const (
	// askAny: the question asks for nothing the words can be checked for
	// (who, where, what, why, yes or no).
	askAny answerKind = iota
	// askTime: when, what time, what date, which day, year or month.
	askTime
	// askQuantity: how much, how big, tall, far, fast, large, high,
	// heavy, deep or wide. Not "how many": a count is as often the
	// number of memories that each hold one of the things counted ("How
	// many Marvel movies did I re-watch?", "How many days passed between
	// …" of two dated ones) as a number one memory states.
	askQuantity
	// askSpan: how long, how often, how old, how late, early or soon, how
	// much time, answered by a number or a time expression ("every third
	// week", "since 2019", "an hour each day").
	askSpan
	// askMoney: how much, with a word of paying ("cost", "pay", "price").
	askMoney
	// askIdentifier: what or which code, number, port, PIN, passcode, URL,
	// address, e-mail, IP, id or postcode (not a password: one is as often
	// a plain word).
	askIdentifier
	// askVersion: what or which version, answered by a number ("1.7",
	// "16", "v0.9.0") or a release's name ("the latest", "LTS").
	askVersion
)

// String names the kind, for --explain.
func (k answerKind) String() string {
	switch k {
	case askTime:
		return "time"
	case askQuantity:
		return "quantity"
	case askSpan:
		return "span"
	case askMoney:
		return "money"
	case askIdentifier:
		return "identifier"
	case askVersion:
		return "version"
	}
	return ""
}

// askedKind reads the kind of answer a question asks for from its opening
// wh-phrase, or from the clause after a leading subordinate one ("When I
// deploy, which port …?" asks for a port, not a time). Anything else asks
// for askAny: the check is made only where English says plainly what the
// answer is.
func askedKind(question string) answerKind {
	words := questionWords(question)
	if i := mainClause(words); i > 0 {
		words = words[i:]
	}
	for len(words) > 0 && (words[0] == "and" || words[0] == "so" || words[0] == "but" || words[0] == "then") {
		words = words[1:]
	}
	if len(words) < 2 {
		return askAny
	}
	switch first, second := words[0], words[1]; {
	case first == "when":
		return askTime
	case first == "how":
		switch second {
		case "long", "often", "old", "late", "early", "soon", "frequently":
			return askSpan
		case "big", "tall", "far", "fast", "large", "high", "heavy", "deep", "wide":
			return askQuantity
		case "much":
			if len(words) > 2 && words[2] == "time" {
				return askSpan
			}
			for _, w := range words[2:] {
				if payingWord[w] {
					return askMoney
				}
			}
			return askQuantity
		}
	case first == "what" || first == "which" || first == "what's" || first == "whats":
		return askedByNoun(words[1:])
	}
	return askAny
}

// askedByNoun reads "what (is) (the) … NOUN" after the wh-word: a time
// noun asks for a time, an identifier noun for an identifier, when the
// noun ends the noun phrase within its first five words (followed by the
// end or a function word: "what time does …", "which day of the week",
// "Henrik's birthday?", "the gate code?", "what port does …"; not "what
// time zone", "the number of", "the code of conduct" nor "the code
// review policy").
func askedByNoun(words []string) answerKind {
	if len(words) > 0 && (words[0] == "is" || words[0] == "are" || words[0] == "was" || words[0] == "were") {
		words = words[1:]
	}
	if len(words) > 0 && determiner[words[0]] {
		words = words[1:]
	}
	for i, w := range words[:min(len(words), 5)] {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		ends := i+1 == len(words) || functionWords[words[i+1]]
		if timeNoun[w] && ends {
			return askTime
		}
		if !identifierNoun[w] {
			if functionWords[w] {
				break
			}
			continue
		}
		if ends && !(i+1 < len(words) && words[i+1] == "of" && (w == "number" || w == "code")) {
			if w == "version" {
				return askVersion
			}
			return askIdentifier
		}
		break
	}
	return askAny
}

// questionWords splits a question into lowercase words, keeping
// apostrophes and hyphens inside them ("what's", "wi-fi"), and a ","
// for each comma (what [mainClause] reads).
func questionWords(q string) []string {
	var out []string
	for f := range strings.FieldsSeq(strings.ToLower(q)) {
		comma := strings.HasSuffix(strings.TrimRight(f, "?!.;:\"')”’"), ",")
		f = strings.TrimFunc(f, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
		if f != "" {
			out = append(out, strings.ReplaceAll(f, "’", "'"))
		}
		if comma {
			out = append(out, ",")
		}
	}
	return out
}

// mainClause is the index of the question's main clause when it opens
// with a subordinate one ("When I deploy, which port …", "If Johan
// reviews it, how big …"): the word after the first comma, when that
// word opens a question; 0 otherwise.
func mainClause(words []string) int {
	for i, w := range words {
		if w != "," {
			continue
		}
		if i+1 < len(words) && questionOpener[words[i+1]] {
			return i + 1
		}
		return 0
	}
	return 0
}

// holdsKind reports whether a record's own words (its text without the
// provenance clause, whose date every record has) hold an expression of
// the kind asked. It errs towards holding: any number answers a
// quantity, any number or time word a time, any word written with a digit
// or as an address an identifier.
func holdsKind(k answerKind, text string) bool {
	if k == askAny {
		return true
	}
	for f := range strings.FieldsSeq(text) {
		raw := strings.TrimFunc(f, func(c rune) bool { return unicode.IsPunct(c) && !strings.ContainsRune("$€£¥%", c) })
		w := strings.ToLower(raw)
		switch k {
		case askTime, askSpan:
			if isNumber(w) || numberWord[w] || timeWord[w] || calendarWord[w] || calendarWord[strings.TrimSuffix(w, "s")] {
				return true
			}
		case askQuantity:
			if isNumber(w) || numberWord[w] {
				return true
			}
		case askMoney:
			if currencyWord[w] || strings.ContainsAny(w, "$€£¥") {
				return true
			}
		case askIdentifier:
			if strings.ContainsAny(w, "0123456789") || isAddress(w) || quoted(f) || capitals(raw) {
				return true
			}
		case askVersion:
			if isNumber(w) || isNumber(strings.TrimPrefix(w, "v")) || versionWord[w] {
				return true
			}
		}
	}
	return false
}

// isNumber reports whether a word is written as a number: a digit first,
// after an optional currency sign ("24", "16.4", "1:28:40", "2026-06-30",
// "300ms", "16-week", "€5"). A digit inside a name ("fsn1", "kafka-1",
// "host:11211") is no quantity.
func isNumber(w string) bool {
	w = strings.TrimLeft(w, "$€£¥")
	c, _ := utf8.DecodeRuneInString(w)
	return c >= '0' && c <= '9'
}

// isAddress reports whether a word is written as an address: a dot, a
// slash, an at sign or a colon between two letters or digits (a host, a
// URL, a path, an e-mail address).
func isAddress(w string) bool {
	for i := 1; i+1 < len(w); i++ {
		if strings.IndexByte("./@:", w[i]) >= 0 && isAlnum(w[i-1]) && isAlnum(w[i+1]) {
			return true
		}
	}
	return false
}

func isAlnum(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// capitals reports whether a word is written in capitals, three letters
// or more ("WELCOME25" has a digit anyway; "SUMMER" is a code as much).
func capitals(w string) bool {
	n := 0
	for _, c := range w {
		if unicode.IsLower(c) {
			return false
		}
		if unicode.IsUpper(c) {
			n++
		}
	}
	return n >= 3
}

// quoted reports whether a field is written in quotes or backticks (a
// password, a command).
func quoted(f string) bool {
	first, _ := utf8.DecodeRuneInString(f)
	return strings.ContainsRune("'\"`‘“", first) && utf8.RuneCountInString(f) > 2
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	// questionOpener opens a main clause after a subordinate one.
	questionOpener = wordSet(`what what's whats which who whom whose where when why how
		is are was were do does did can could should would will shall`)
	determiner = wordSet(`the a an my our your his her their its this that these those`)
	// timeNoun after "what"/"which" asks for a time.
	timeNoun = wordSet(`time date dates day days year month week weekday hour birthday anniversary deadline`)
	// identifierNoun ending the noun phrase after "what"/"which" asks for
	// something written with digits or as an address.
	identifierNoun = wordSet(`code number port pin passcode url address email e-mail ip id version postcode zip`)
	// payingWord turns "how much" into a question about money.
	payingWord = wordSet(`money cost costs costed pay paid pays paying price prices priced spend spends spent spending
		charge charges charged fee fees earn earns earned rent salary worth budget owe owed owes`)
	numberWord = wordSet(`zero one two three four five six seven eight nine ten eleven twelve thirteen
		fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
		ninety hundred hundreds thousand thousands million millions billion dozen dozens half twice once
		single double triple couple both none few several`)
	// timeWord answers "when" beside numbers and the calendar words:
	// seasons, parts of the day, relative and repeated times, and the
	// connectives that place an event in time ("before each deploy",
	// "once the last merchants move").
	timeWord = wordSet(`spring summer autumn fall winter morning mornings afternoon afternoons evening evenings
		night nights noon midday midnight tonight today tomorrow yesterday weekend weekends weekday weekdays
		daily weekly monthly yearly annually nightly hourly fortnightly biweekly quarterly
		every each ago next last soon later early late before after until till since during once whenever
		now currently recently always never usually often sometimes rarely seldom occasionally regularly
		jan feb mar apr jun jul aug sep sept oct nov dec christmas easter midsummer holiday holidays
		second seconds minute minutes hour hours day days week weeks fortnight month months year years
		decade decades quarter season first`)
	// versionWord names a release without its number.
	versionWord  = wordSet(`latest newest current stable lts nightly beta alpha`)
	currencyWord = wordSet(`sek eur usd gbp nok dkk chf jpy cad aud inr pln czk kr kronor krona kroner
		euro euros dollar dollars pound pounds cent cents pence penny yen franc francs rupee rupees
		peso pesos zloty free`)
)
