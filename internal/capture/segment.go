package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences splits one line of prose into sentences. A sentence ends at
// ".", "!", "?" or "…" (with any closing quotes or brackets after it) that
// is followed by white space and then by something that can start a
// sentence: not a lower-case letter, not a digit after a list number. What
// never ends a sentence:
//   - a mark with no space after it: times (07:40), file names (go.mod),
//     versions (1.26.1), URLs (example.org/a?b=1), decimals (0.90);
//   - anything inside a code span (`make test. Then`);
//   - the dot of an abbreviation (e.g., i.e., Dr., approx., U.S.)
//     or of an initial (J. R. Smith);
//   - a colon or a semicolon, which join clauses of one sentence.
//
// The pieces are trimmed; empty pieces are dropped.
func Sentences(line string) []string {
	var out []string
	start := 0
	inCode := false
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		if r == '`' {
			inCode = !inCode
		}
		if inCode || !isTerminal(r) {
			i += n
			continue
		}
		end := i + n
		// The run of marks and closers: "?!", "...", `."`, ".)".
		for end < len(line) {
			r2, n2 := utf8.DecodeRuneInString(line[end:])
			if !isTerminal(r2) && !isCloser(r2) {
				break
			}
			end += n2
		}
		if end < len(line) && !isSpace(line[end]) {
			i = end
			continue
		}
		next := end
		for next < len(line) && isSpace(line[next]) {
			next++
		}
		if next < len(line) && !endsSentence(line[start:i], r, line[next:]) {
			i = end
			continue
		}
		if s := strings.TrimSpace(line[start:end]); s != "" {
			out = append(out, s)
		}
		start, i = next, next
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func isTerminal(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

func isCloser(r rune) bool {
	return r == '"' || r == '\'' || r == ')' || r == ']' || r == '”' || r == '’' || r == '»' || r == '*' || r == '_'
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// endsSentence decides a mark followed by a space: before is the text of
// the sentence so far (up to the mark), mark the mark and after what
// follows the space.
func endsSentence(before string, mark rune, after string) bool {
	first, _ := utf8.DecodeRuneInString(after)
	if unicode.IsLower(first) {
		// "e.g. the", "approx. two", "Done... and then": one sentence.
		// "?" and "!" before a lower-case word end one only in chat
		// style, which is too rare to be worth a wrong cut.
		return false
	}
	if mark != '.' {
		return true
	}
	word := lastWord(before)
	if isAbbreviation(word) {
		return false
	}
	// A single capital is an initial ("J. Smith"), not a sentence.
	if w := []rune(word); len(w) == 1 && unicode.IsUpper(w[0]) {
		return false
	}
	return true
}

// lastWord is the word just before the end of s: letters, digits and the
// dots inside it ("e.g", "U.S", "approx").
func lastWord(s string) string {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' {
			break
		}
		i -= n
	}
	return strings.TrimLeft(s[i:], ".")
}

// abbreviations end in a dot without ending the sentence. Lower case;
// inner dots kept ("e.g").
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "cf": true, "vs": true, "approx": true, "incl": true,
	"excl": true, "esp": true, "resp": true, "viz": true, "al": true, "ca": true, "nr": true, "fig": true, "figs": true, "eq": true,
	"vol": true, "p": true, "pp": true, "ch": true, "dept": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "jr": true,
	"sr": true, "mt": true, "ft": true, "inc": true, "ltd": true, "corp": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"tue": true, "tues": true, "thu": true, "thurs": true, "fri": true,
	"a.m": true, "p.m": true, "u.s": true, "u.k": true, "e.u": true,
	"ph.d": true, "n.b": true, "z.b": true, "bzw": true, "ggf": true, "usw": true,
}

func isAbbreviation(word string) bool {
	w := strings.ToLower(word)
	if abbreviations[w] {
		return true
	}
	// Dotted initialisms not in the list ("U.S.A", "R.S.V.P").
	return strings.Count(w, ".") >= 1 && len(strings.ReplaceAll(w, ".", "")) <= 4 && allSingleLetters(w)
}

func allSingleLetters(w string) bool {
	for _, part := range strings.Split(w, ".") {
		if len([]rune(part)) != 1 {
			return false
		}
	}
	return true
}
