package vault

import (
	"slices"
	"strings"
	"unicode"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/rank"
)

// Store decisions. A cosine cannot see a changed digit, an added "not" or
// two names swapped (a bag-of-words model gives such pairs 0.99 and
// more), so a store folds a new claim into an existing one only when the
// two are close by the model's calibration AND agree literally: the same
// words in the same order, up to case, punctuation, articles and
// inflection (the literal channel's rules, [fts.SameWord]), with the
// negations of both sides written one way. Any difference there keeps
// both: a distinct fact, or for an opinion on the same topic a conflict
// the writer resolves with supersedes. Nothing is ever folded silently.
// Three folds need no cosine, all for an opinion of the same holder
// ([DecideOpinion]): an object of the same content words in the same
// order; the same with a word said otherwise by WordNet
// ([sayOtherwise]); a noun said as a gerund with its object
// ([complements]). The model can only be wrong there, never more right
// than the words.

// Calibration is what the loaded model's cosines mean, with the vault's
// similarity settings, when set, in place of the model's thresholds: what
// the store decides with ([DecideOpinion], [IsDuplicate]).
func (v *Vault) Calibration() rank.Calibration { return v.calibration() }

// calibration is what the loaded model's cosines mean, with the vault's
// similarity settings, when set, in place of the model's thresholds. A
// vault without a model compares identical texts only (cosine 1).
func (v *Vault) calibration() rank.Calibration {
	cal := rank.SpecCalibration
	if v.enc != nil {
		cal = RankCalibration(v.enc.Info().Calibration)
	}
	s := v.cfg.Settings
	if s.DuplicateThreshold > 0 {
		cal.SameMeaning = s.DuplicateThreshold
	}
	if s.OpinionUpdateThreshold > 0 {
		cal.SameTopic = s.OpinionUpdateThreshold
	}
	return cal
}

// RankCalibration is a model's calibration as the ranking reads it.
func RankCalibration(c embed.Calibration) rank.Calibration {
	return rank.Calibration{CosFloor: c.CosFloor, CosCeil: c.CosCeil, SameMeaning: c.SameMeaning, SameTopic: c.SameTopic,
		SemanticWeight: c.SemanticWeight}
}

// duplicateOf returns the first of the similar live records (best first)
// that r's claim duplicates ([IsDuplicate]), or nil.
func (v *Vault) duplicateOf(r *Record, similar []similarHit) *Record {
	cal := v.calibration()
	for _, h := range similar {
		if IsDuplicate(h.rec.Text, r.Text, h.cos, cal) {
			return h.rec
		}
	}
	return nil
}

// decideOpinion is [DecideOpinion] for a similar live record and the
// opinion r being stored, with the vault's re-affirmation setting, when
// set, as the similarity a restatement needs.
func (v *Vault) decideOpinion(h similarHit, r *Record) OpinionVerdict {
	cal := v.calibration()
	if s := v.cfg.Settings.OpinionReaffirmThreshold; s > 0 {
		cal.SameMeaning = s
	}
	if s := v.cfg.Settings.OpinionUpdateThreshold; s > 0 {
		// The setting is the similarity from which opinions overlap,
		// for named things too.
		cal.CosFloor = s
	}
	return DecideOpinion(h.rec.Text, r.Text, h.cos, cal)
}

// OpinionVerdict is what storing an opinion means for one live opinion.
type OpinionVerdict int

const (
	// OpinionUnrelated: another topic; both stand.
	OpinionUnrelated OpinionVerdict = iota
	// OpinionConflict: the same topic, and the new text says something
	// the old does not (or says it otherwise than the literal check can
	// prove equal): the writer decides with supersedes.
	OpinionConflict
	// OpinionSame: the same opinion restated; the old one is
	// re-affirmed (its date refreshed) and no copy is stored.
	OpinionSame
)

func (v OpinionVerdict) String() string {
	switch v {
	case OpinionConflict:
		return "conflict"
	case OpinionSame:
		return "same"
	}
	return "unrelated"
}

// DecideOpinion is the store's opinion check for one pair: the live
// opinion old, the new opinion text, their best-window cosine and the
// model's calibration. Each side is read as holder, stance and object
// ([parseOpinion]):
//
//	unrelated if the holders differ, or the objects share no aspect word
//	          ([sameAspect])
//	          but a conflict if either says the mind changed and one says
//	          the other's purpose as its modifier ("sticky notes for
//	          reminders" / "has switched to a reminders app":
//	          [purposeModifies])
//	same      else if the objects are the same content words in the same
//	          order up to function words ([elaborates]), whatever the
//	          cosine
//	same      else if they are so once the lexicon pairs words said
//	          otherwise (flights/fly, backups/backing up, couch/sofa:
//	          [sayOtherwise]), or one says the other's noun as a gerund
//	          with its object ([complements]), neither saying the mind
//	          changed, or one says the other's modifier after its head
//	          ("morning yoga" = "yoga in the morning": [movesModifier]),
//	          or its two phrases the other way round ("oat milk in
//	          coffee" = "coffee with oat milk": [inverts]), or one says
//	          the other's compound of a modifier and an act's noun as
//	          the verb with its object ("code reviews" = "to review
//	          code": [actsOnModifier]), whatever the cosine
//	same      else if cos ≥ same_topic (cos ≥ cos_floor when the shared
//	          word is a name) and the objects hold one genre in one
//	          medium, its works named otherwise ("Nordic noir series" =
//	          "Nordic noir TV": [oneMedium])
//	same      else if cos ≥ same_topic (cos ≥ cos_floor when the shared
//	          word is a name) and the objects judge one thing with two
//	          phrases of one judgement ("YAML error-prone" = "YAML easy
//	          to get wrong": [judgesAlike])
//	same      else if one is the other with a reason or examples added
//	          at the end ([givesReason]), whatever the cosine
//	conflict  else if one compares something over what the other holds
//	          ([overturns]), whatever the cosine
//	unrelated else if what the two hold shares only a modifier, the
//	          heads neither one word nor two of one kind ("sourdough
//	          baking" / "sourdough pizza": [sharesModifierOnly]),
//	          whatever the cosine
//	conflict  else if cos ≥ cos_floor and the objects are the same words
//	          but one modifier of one head ("aisle seats" / "window
//	          seats": [swapsModifier])
//	conflict  else if cos < same_topic (cos < cos_floor when the shared
//	          word is a name) and the new text says its holder's mind
//	          changed about the first thing the old one holds
//	          ([reopens])
//	unrelated else if cos < same_topic (cos < cos_floor when the shared
//	          word is a name: the model need only not call them
//	          unrelated)
//	same      else if cos ≥ same_meaning and the objects agree literally
//	          as opinions otherwise ([restates]: two plain words swapped
//	          after a possessive)
//	conflict  otherwise
//
// A shared name ("Trello", "Terraform", "Kafka") is the strongest literal
// evidence of one aspect there is, and a name is what a small model knows
// least (a rare word moves its cosines least), so it needs only the
// model's floor.
//
// So an opinion conflicts only with one of the same holder about the same
// thing (the calibrated similarity and a shared aspect word both say so),
// never with another opinion that merely names the same person; and a
// restatement (the same holder, aspect and stance, said otherwise) is
// re-affirmed. Agreeing as opinions lets the stance verbs differ
// (prefers/likes/thinks/would rather: how an opinion is held, not what it
// is about), but never the things preferred, their order, or a negation.
// The rules that let a word differ or be added beyond function words (the
// lexicon, a gerund with its object) are held back when either text says
// the mind changed ([changeMarked]); a marker never makes a pair "same",
// and its absence never proves a restatement. The lexicon knows general
// English only (WordNet: never a name, a number or a negation, never two
// alternatives such as tea and coffee), and it decides only where every
// other word already agrees.
func DecideOpinion(old, text string, cos float64, cal rank.Calibration) OpinionVerdict {
	a, b := parseOpinion(old), parseOpinion(text)
	fixed := func(w string) bool { return a.fixed[w] || b.fixed[w] }
	shared, named := sameAspect(a, b)
	switch {
	case !sameHolder(a, b):
		return OpinionUnrelated
	case !shared:
		if (a.changed || b.changed) && purposeModifies(a, b, fixed) {
			// What now fills the purpose, said as its modifier
			// ("sticky notes for reminders" then "has switched to a
			// reminders app"): the same role, a changed mind.
			return OpinionConflict
		}
		return OpinionUnrelated
	case elaborates(a.object, b.object, fixed):
		// Every content word of the objects agrees, in order: nothing a
		// cosine could add. The bundled model puts such restatements of
		// words it knows little ("Nadia finds Kubernetes
		// overcomplicated." / "Nadia thinks Kubernetes is too
		// complicated.": 0.19) below its floor.
		return OpinionSame
	case sayOtherwise(a, b, fixed) || complements(a, b, fixed) || movesModifier(a, b, fixed) || inverts(a, b, fixed) ||
		actsOnModifier(a, b, fixed):
		// The same, with a word said otherwise by the lexicon (flights /
		// fly): the model cannot tell those words from alternatives
		// (0.21 against morning/evening's 0.78), WordNet can.
		return OpinionSame
	case (cal.OnSameTopic(cos) || named && cos >= cal.CosFloor) && oneMedium(a, b, fixed):
		// One genre in one medium, its works named otherwise ("Nordic
		// noir series" / "Nordic noir TV"): the model puts them on one
		// topic (a shared name need only not be called unrelated), and
		// the table of media says the head names the same works, which
		// the model cannot (podcasts are as near).
		return OpinionSame
	case (cal.OnSameTopic(cos) || named && cos >= cal.CosFloor) && judgesAlike(a, b, fixed):
		// One thing judged with two phrases of one judgement ("YAML
		// error-prone" / "YAML easy to get wrong"), the model putting
		// them on one topic, as a shared name need only not be called
		// unrelated.
		return OpinionSame
	case givesReason(a, b, fixed):
		// The same object, with a clause that says why it is held.
		return OpinionSame
	case overturns(a, b, fixed) || overturns(b, a, fixed):
		return OpinionConflict
	case sharesModifierOnly(a, b, fixed):
		// One holder, two things that share only a modifier ("sourdough
		// baking" / "sourdough pizza"): the model, near because of the
		// shared word, cannot make them one aspect.
		return OpinionUnrelated
	case cos >= cal.CosFloor && swapsModifier(a.object, b.object, fixed):
		// One head, another modifier of it ("aisle seats" / "window
		// seats"): the model need only not call them unrelated, as for
		// a name; the bundled model puts "prefers aisle seats" and
		// "would rather have window seats" below its same_topic.
		return OpinionConflict
	case !(cal.OnSameTopic(cos) || named && cos >= cal.CosFloor):
		if reopens(a, b) {
			// The new text says the mind changed about what the old
			// one holds: the model, far off because the new object
			// says more ("has gone off pytest fixtures and now prefers
			// plain factory functions"), cannot make that another topic.
			return OpinionConflict
		}
		return OpinionUnrelated
	case cal.SaysSame(cos) && restates(a, b):
		return OpinionSame
	}
	return OpinionConflict
}

// IsDuplicate is the store's near-duplicate check for a fact: the new text
// says the same as the existing claim old at cosine cos when the cosine is
// at least the model's same_meaning and the two agree literally (same
// words in the same order up to case, punctuation, articles and
// inflection; negations written one way).
func IsDuplicate(old, text string, cos float64, cal rank.Calibration) bool {
	return cal.SaysSame(cos) && claimsAgree(old, text)
}

// claimsAgree reports whether two facts agree literally: their
// canonical word sequences ([claimWords]) have the same word at every
// position, up to inflection, where a compound one of them writes with a
// hyphen may be one word in the other ([wordsAgree]).
func claimsAgree(a, b string) bool {
	return wordsAgree(claimWords(a, false), hyphenCompounds(a), claimWords(b, false), hyphenCompounds(b))
}

// wordsAgree reports whether the word sequences x and y are the same
// words in the same order, up to inflection, two neighbouring words of
// one side standing for one word of the other when that side wrote them
// as one compound with a hyphen (hx, hy: [hyphenCompounds]): "e-mail" is
// "email", "Wi-Fi" is "WiFi", "on-call" is "oncall". Only the word
// boundary differs there, never a letter; two words apart without a
// hyphen ("over time", "any way") are never joined, since they often say
// something other than the closed word (overtime, anyway).
func wordsAgree(x []string, hx map[string]bool, y []string, hy map[string]bool) bool {
	switch {
	case len(x) == 0 || len(y) == 0:
		return len(x) == len(y)
	case fts.SameWord(x[0], y[0]) && wordsAgree(x[1:], hx, y[1:], hy):
		return true
	case len(x) > 1 && hx[x[0]+x[1]] && fts.SameWord(x[0]+x[1], y[0]) && wordsAgree(x[2:], hx, y[1:], hy):
		return true
	}
	return len(y) > 1 && hy[y[0]+y[1]] && fts.SameWord(y[0]+y[1], x[0]) && wordsAgree(x[1:], hx, y[2:], hy)
}

// hyphenCompounds are the closed forms of the two-part compounds text
// writes with a hyphen between letters ("e-mail" → "email", "Wi-Fi" →
// "wifi"), case-folded: the only neighbouring words [wordsAgree] may
// join. A part holding a digit is never joined (a number is fixed), nor
// the prefixes whose hyphen tells two words apart (re-sign/resign,
// re-cover/recover, co-op/coop).
func hyphenCompounds(text string) map[string]bool {
	var out map[string]bool
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		parts := strings.Split(tok, "-")
		for i := 0; i+1 < len(parts); i++ {
			if allLetters(parts[i]) && allLetters(parts[i+1]) && !hyphenPrefixes[strings.ToLower(parts[i])] {
				if out == nil {
					out = map[string]bool{}
				}
				out[strings.ToLower(parts[i]+parts[i+1])] = true
			}
		}
	}
	return out
}

var hyphenPrefixes = setOf("re", "co")

func allLetters(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// elaborates reports whether two opinions' canonical words are the same
// words in the same order once either is allowed extra function words
// (prepositions, wh-words, pronouns, hedges: "Marcus thinks ORMs hide too
// much of what is going on" restates "Marcus thinks ORMs hide too much").
// An extra content word, name, number, negation or comparison is never
// allowed, but for what only one of them adds and what it holds does not
// change ([oneSided]: the noun of a closing hedge, "… the sensible
// default cache for most projects"; a verb of taking the object in,
// "likes listening to audiobooks"); a name that looks like a function
// word ("Go") counts as a name when fixed says so. An alternative of a
// comparison may be said as the act of travelling by it ([travelsBy]:
// "over cars" = "than drive").
func elaborates(a, b []string, fixed func(string) bool) bool {
	a, b = toAsOver(a, b), toAsOver(b, a)
	a, b = oneSided(a, b, fixed)
	a, b = contentOnly(a, fixed), contentOnly(b, fixed)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameOpinionWord(a[i], b[i]) && !travelsBy(a, b, i) {
			return false
		}
	}
	return true
}

// travelsBy reports whether the content words a and b hold, at i, one
// alternative of a comparison said once as a vehicle and once as the act
// of travelling by it ("prefers buses over cars" = "would rather take
// the bus than drive"; "trains over planes" = "the train than fly"): a
// choice between ways of getting somewhere names the way either way.
// Only next to the "over" of a comparison on both sides: outside one,
// "likes driving" is not "likes cars".
func travelsBy(a, b []string, i int) bool {
	compared := func(w []string) bool { return i > 0 && w[i-1] == "over" || i+1 < len(w) && w[i+1] == "over" }
	if !compared(a) || !compared(b) {
		return false
	}
	act := func(verb, vehicle string) bool {
		for act, vehicles := range travelActs {
			if anySameWord(verb, []string{act}) && anySameWord(vehicle, vehicles) {
				return true
			}
		}
		return false
	}
	return act(a[i], b[i]) || act(b[i], a[i])
}

// travelActs are the verbs of travelling by a vehicle, each with the
// vehicles it names (general English: one drives a car, flies in a
// plane).
var travelActs = map[string][]string{
	"drive": {"car"},
	"fly":   {"plane", "airplane", "aeroplane"},
	"cycle": {"bike", "bicycle"},
	"sail":  {"boat", "sailboat"},
}

// toAsOver writes the "to" of "prefers X to Y" in words as the "over" it
// means when the other opinion compares and words does not ("prefers
// paper books to e-readers" = "prefers paper books over e-readers"): the
// first "to" between two plain content words. A "to" of another sense
// ("tabs to keep diffs small", "driving to Oslo", "listening to
// audiobooks") meets no "over" of the same words, so it changes no
// verdict but a comparison's.
func toAsOver(words, other []string) []string {
	if slices.Contains(words, "over") || !slices.Contains(other, "over") {
		return words
	}
	plain := func(w string) bool { return !elaboration[w] && !aspectStop[w] && !opinionFiller(w) }
	for i := 1; i+1 < len(words); i++ {
		if words[i] == "to" && plain(words[i-1]) && plain(words[i+1]) {
			out := slices.Clone(words)
			out[i] = "over"
			return out
		}
	}
	return words
}

// oneSided returns two opinions' words without what only one of them
// adds and what it holds does not change: the noun of a closing hedge
// ([closingHedge]), and a verb of taking in the object ([consuming]:
// "enjoys audiobooks" = "likes listening to audiobooks"). When both add
// one, they must agree on it.
func oneSided(a, b []string, fixed func(string) bool) ([]string, []string) {
	ha, hb := closingHedge(a, fixed), closingHedge(b, fixed)
	switch {
	case ha && !hb:
		a = a[:len(a)-1]
	case hb && !ha:
		b = b[:len(b)-1]
	}
	ca, cb := consuming(a, fixed), consuming(b, fixed)
	switch {
	case ca != nil && cb == nil:
		a = withoutAt(a, ca)
	case cb != nil && ca == nil:
		b = withoutAt(b, cb)
	}
	return a, b
}

// consuming returns where an opinion's words say how its object is taken
// in, watched, listened to, read, eaten or drunk ("likes watching ski
// jumping", "prefers to read on paper" is none: a verb counts only right
// before its object, a plain content word), or, as an infinitive, the
// everyday act it is chosen for ([usingVerbs]: "would rather pay cash",
// "would rather shop at markets", a preposition allowed before the
// object): the opinion is about the object either way. A verb of doing ("playing football", "writing
// books") is no such word, and stays what the opinion holds.
func consuming(words []string, fixed func(string) bool) []int {
	var at []int
	for i, w := range words {
		infinitive := i > 0 && words[i-1] == "to"
		if !consumingGerunds[w] && !(consumingVerbs[w] && infinitive) && !(usingVerbs[w] && infinitive) {
			continue
		}
		next := i + 1
		if next < len(words) && words[next] == "to" && (w == "listening" || w == "listen") {
			next++
		}
		if next+1 < len(words) && usingVerbs[w] && modifierPrepositions[words[next]] {
			next++ // "shop at markets"
		}
		if next < len(words) && !fixed(w) && (fixed(words[next]) || !elaboration[words[next]] && !aspectStop[words[next]] &&
			!opinionFiller(words[next]) && words[next] != "not") {
			at = append(at, i)
		}
	}
	return at
}

var (
	consumingGerunds = setOf("watching", "listening", "reading", "eating", "drinking")
	consumingVerbs   = setOf("watch", "listen", "read", "eat", "drink")
	// usingVerbs, as an infinitive ("would rather pay cash than card",
	// "prefers to shop at markets"), name the everyday act the object is
	// chosen for, as a light verb does (use, take, have), and say nothing
	// against it. Only the infinitive counts: "book clubs", "shop
	// windows" and "ride sharing" are nouns.
	usingVerbs = setOf("pay", "shop", "buy", "order", "ride", "wear", "book", "visit", "get")
)

func withoutAt(words []string, at []int) []string {
	out := make([]string, 0, len(words))
	for i, w := range words {
		if !slices.Contains(at, i) {
			out = append(out, w)
		}
	}
	return out
}

// closingHedge reports whether an opinion's words end with a hedge on
// its scope: "for" or "in", "most", and one plain word ("for most
// projects", "in most teams"), which says the opinion holds as a rule,
// not what it is about. Only the hedge's noun is content ("most" and the
// preposition are [elaboration] words); a name or number is never a
// hedge's noun. Two opinions that both close with one must agree on it.
func closingHedge(words []string, fixed func(string) bool) bool {
	n := len(words)
	if n < 4 || words[n-2] != "most" || words[n-3] != "for" && words[n-3] != "in" {
		return false
	}
	w := words[n-1]
	return !fixed(w) && !elaboration[w] && !opinionFiller(w) && !aspectStop[w] && w != "not" &&
		strings.IndexFunc(w, unicode.IsDigit) < 0
}

func contentOnly(words []string, fixed func(string) bool) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if !elaboration[w] || fixed(w) {
			out = append(out, w)
		}
	}
	return out
}

// claimWords is a claim's canonical word sequence: the literal channel's
// words (case-folded, punctuation gone), a leading adverbial phrase moved
// to the end ("For small services, X" = "X for small services"), the
// articles dropped, possessive 's dropped, every negation written "not"
// (not, n't, no, never, without, …), "than" written "over", a word
// over-X written "too X".
//
// For an opinion the stance words are dropped too (how the opinion is
// held: prefer, like, think, would rather, …), as are auxiliaries,
// be-forms, possessive pronouns, the light verbs use/take/have, the
// time words of a changed mind (now, nowadays, these days, no longer:
// the stance and the object say what changed), an intensifier of the
// stance (a big fan, really likes), a stance phrase (keen on, fond of,
// crazy about), the degree before "too" (far too, much too) and a
// positive judgement (good, right, sensible, better); a negative stance
// (dislike, hate, tired of, fed up with, can't stand), an ended one
// (used to, has stopped, gave up, lost interest in) or a negative
// judgement (bad, wrong, worse, overkill) leaves its "not".
func claimWords(text string, opinion bool) []string {
	return canonicalWords(fts.Words(frontedLast(text)), opinion)
}

// canonicalWords is [claimWords] for words already cut.
func canonicalWords(words []string, opinion bool) []string {
	var out []string
	for i, w := range words {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if base, ok := cutNegation(w); ok {
			if base != "" && !(opinion && opinionFiller(base)) {
				out = append(out, base)
			}
			out = append(out, "not")
			continue
		}
		switch {
		case articles[w]:
			continue
		case negations[w]:
			w = "not"
		case w == "than":
			w = "over"
		}
		if x, ok := strings.CutPrefix(w, "over"); ok && len(x) >= 5 {
			// overcomplicated = too complicated, overpriced = too priced:
			// the prefix is the degree word.
			out = append(out, "too", x)
			continue
		}
		if opinion {
			next := ""
			if i+1 < len(words) {
				next = words[i+1]
			}
			switch {
			case negativeStance(w) || negativeJudgement[w] || negativeStanceAt(words, i) || stoppedAt(words, i) || usedToAt(words, i):
				out = append(out, "not")
				continue
			case w == "up" && i > 0 && (words[i-1] == "fed" || words[i-1] == "gave" || words[i-1] == "given"),
				w == "interest" && i > 0 && words[i-1] == "lost",
				w == "to" && i > 0 && usedToAt(words, i-1),
				positiveStanceAt(words, i) && w != "into",
				cantBear[w] && i > 0 && cantBefore(words, i),
				degreeOfToo[w] && next == "too":
				continue
			case opinionFiller(w) || positiveJudgement[w],
				intensifiers[w] && (opinionFiller(next) || negativeStance(next)),
				(w == "longer" || w == "anymore") && len(out) > 0 && out[len(out)-1] == "not",
				w == "days" && i > 0 && words[i-1] == "these",
				changeVerbs[w] && i > 0 && (words[i-1] == "has" || words[i-1] == "have" || words[i-1] == "had"):
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// cutNegation splits a contracted negation: doesn't → does, won't → will,
// can't and cannot → can.
func cutNegation(w string) (string, bool) {
	w = strings.ReplaceAll(w, "’", "'")
	switch w {
	case "cannot", "can't":
		return "can", true
	case "won't":
		return "will", true
	}
	if base, ok := strings.CutSuffix(w, "n't"); ok {
		return base, true
	}
	return "", false
}

var (
	articles  = setOf("a", "an", "the")
	negations = setOf("not", "no", "never", "without", "none", "nothing", "nobody", "neither", "nor", "nowhere")
	// stanceWords say how an opinion is held, not what it is about.
	stanceWords = []string{"prefer", "like", "love", "enjoy", "favour", "favor", "think", "feel",
		"find", "consider", "believe", "rather", "would", "fan", "adore"}
	// cantBear words after "can't" or "cannot" hold an opinion against
	// the object, as the negation before them says: "can't stand crowded
	// trains" = "hates crowded trains".
	cantBear = setOf("stand", "bear", "abide", "stomach")
	// degreeOfToo words before "too" only grade it: "far too
	// complicated" says "too complicated".
	degreeOfToo = setOf("far", "much", "way", "slightly", "little", "bit")
	// negativeStance words hold an opinion against its object.
	negativeStanceWords = []string{"dislike", "hate", "detest", "loathe", "despise"}
	// wearyWords hold an opinion against what follows "of": "is tired of
	// crime podcasts", "sick of", "bored with".
	wearyWords = setOf("tired", "sick", "bored", "weary")
	// opinionFunction words carry no content of an opinion. "doing" is
	// the light verb "do" before its object ("likes doing jigsaw
	// puzzles" = "enjoys jigsaw puzzles"), as "having" is "have".
	opinionFunction = setOf("is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "doing",
		"his", "her", "their", "its", "my", "our", "your", "that", "use", "take", "have", "has", "having", "using", "taking",
		"now", "nowadays", "want", "wants", "wanted", "can", "could")
	// Judgements held for or against the thing an opinion is about: "X is
	// the right default" holds X as "X is a sensible default" does.
	positiveJudgement = setOf("good", "great", "right", "sensible", "best", "better", "ideal", "excellent",
		"solid", "reasonable", "perfect", "wise", "smart")
	negativeJudgement = setOf("bad", "wrong", "worse", "worst", "poor", "terrible", "awful", "overkill")
	// intensifiers of a stance: "a big fan of", "really likes".
	intensifiers = setOf("big", "huge", "real", "really", "very", "strongly", "absolutely", "definitely",
		"totally", "quite", "particularly", "especially", "genuinely", "truly")
	// elaboration words may be added to an opinion without changing it.
	elaboration = setOf("of", "on", "in", "at", "to", "for", "with", "by", "from", "about", "into",
		"what", "which", "who", "how", "when", "where", "why", "it", "them", "this", "these", "those",
		"go", "goes", "going", "gone", "went",
		// hedges: "for most things", "in general"
		"most", "mostly", "things", "cases", "general", "generally", "usually", "typically", "overall")
	// frontingWords start an adverbial phrase that may lead a sentence.
	frontingWords = setOf("for", "in", "within", "at", "on", "during", "with", "when", "after", "before", "across", "outside", "inside",
		"between", "among", "around", "throughout", "from", "to", "near", "under", "until", "while", "since", "along")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// opinionFiller reports whether w is a stance or function word of an
// opinion (any inflection of a stance word: prefers, liked, thinking).
func opinionFiller(w string) bool {
	return opinionFunction[w] || anySameWord(w, stanceWords)
}

func negativeStance(w string) bool { return anySameWord(w, negativeStanceWords) }

// cantBefore reports whether words[i] follows "can't", "cannot" or "can
// not".
func cantBefore(words []string, i int) bool {
	prev := strings.ReplaceAll(words[i-1], "’", "'")
	return prev == "can't" || prev == "cannot" || prev == "not" && i > 1 && words[i-2] == "can"
}

// negativeStanceAt reports whether a phrase that holds an opinion
// against its object starts at words[i]: a weary word before "of" or
// "with" ("tired of", "bored with"), or "fed up".
func negativeStanceAt(words []string, i int) bool {
	if i+1 >= len(words) {
		return false
	}
	next := words[i+1]
	return wearyWords[words[i]] && (next == "of" || next == "with") || words[i] == "fed" && next == "up"
}

// anySameWord reports whether w is a form of a word of list, by the
// opinion rules' inflections ([sameOpinionWord]: liking is like, hating
// is hate).
func anySameWord(w string, list []string) bool {
	for _, s := range list {
		if sameOpinionWord(w, s) {
			return true
		}
	}
	return false
}

// frontedLast moves a leading adverbial phrase closed by a comma to the
// end: "For public APIs, Marcus favours REST" → "Marcus favours REST For
// public APIs". Only a phrase that starts with a preposition moves, and
// only the first comma closes it.
func frontedLast(text string) string {
	text = strings.TrimSpace(text)
	head, rest, ok := strings.Cut(text, ",")
	if !ok {
		return text
	}
	first, _, _ := strings.Cut(strings.TrimSpace(head), " ")
	if !frontingWords[strings.ToLower(first)] || strings.TrimSpace(rest) == "" || appositive(rest) {
		return text
	}
	rest = strings.TrimRightFunc(strings.TrimSpace(rest), unicode.IsPunct)
	return rest + " " + head
}

// appositive reports whether the text after a comma continues the clause
// before it ("I prefer spaces, not tabs") rather than following a fronted
// phrase.
func appositive(rest string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	switch strings.ToLower(strings.TrimFunc(first, unicode.IsPunct)) {
	case "not", "no", "never", "but", "and", "or", "nor", "rather", "instead":
		return true
	}
	return false
}
