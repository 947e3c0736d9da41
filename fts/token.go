package fts

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Term kinds. A document's length (for BM25 ordering) counts words only;
// parts and compounds are extra keys for the same text.
const (
	kindWord     = iota // a UAX #29 word, case-folded
	kindPart            // a piece of a word: foo_bar → foo, bar; camelCase → camel, case
	kindCompound        // a whitespace-delimited run of several words: a path, an address, a URL
)

// Limits that keep tokenisation linear and the vocabulary sane.
const (
	// MinPartRunes is the shortest word part worth a posting: single
	// letters and digits split out of a1b2c3 would only add noise.
	MinPartRunes = 2
	// MaxTermBytes is the longest term kept. A longer word or compound
	// (a pasted blob) is skipped whole; its parts are still indexed.
	MaxTermBytes = 256
)

var folder = cases.Fold()

// asciiFastPath selects [tokenizer.asciiRun] for ASCII runs. Tests switch
// it off to check the fast path against uniseg on the same text.
var asciiFastPath = true

// Tokens returns the terms [Index] stores for text, in order of first
// appearance, each once. It is the same function for documents and
// queries, so what a user types is cut exactly like what was stored.
func Tokens(text string) []string {
	var out []string
	seen := map[string]bool{}
	tokenize(text, func(term []byte, kind int) {
		if !seen[string(term)] {
			seen[string(term)] = true
			out = append(out, string(term))
		}
	})
	return out
}

// emitFunc receives each term occurrence. The bytes are only valid during
// the call: the tokenizer reuses its buffer.
type emitFunc func(term []byte, kind int)

// tokenizer holds the state of one tokenize call: the current
// white-space-delimited run and a scratch buffer for folded terms.
type tokenizer struct {
	emit emitFunc
	buf  []byte
	// The run being segmented, and the span from the start of its first
	// word to the end of its last, for the compound.
	run         string
	words       int
	first, last int
}

// tokenize cuts text into terms and calls emit for every occurrence:
// NFKC, UAX #29 word boundaries, case folding; each word whole and split
// into its parts; and each whitespace-delimited run of several words
// (foo/bar.go, bob@example.com, https://x.org/a) whole as a compound.
//
// Word boundaries never cross white space, so the text is cut into
// white-space-delimited runs first: an ASCII run takes the fast path
// ([tokenizer.asciiRun], the UAX #29 rules restricted to ASCII), any other
// run goes through uniseg.
func tokenize(text string, emit emitFunc) {
	t := tokenizer{emit: emit, buf: make([]byte, 0, 64)}
	text = nfkc(text)
	for len(text) > 0 {
		i, ascii := 0, true
		for i < len(text) {
			b := text[i]
			if b < utf8.RuneSelf {
				if asciiSpace[b] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				break
			}
			ascii = false
			i += size
		}
		t.run, t.words = text[:i], 0
		if ascii && asciiFastPath {
			t.asciiRun()
		} else {
			t.unicodeRun()
		}
		t.compound()
		text = skipSpace(text[i:])
	}
}

// word records the word run[start:end] and emits it with its parts.
func (t *tokenizer) word(start, end int) {
	if t.words == 0 {
		t.first = start
	}
	t.words++
	t.last = end
	w := t.run[start:end]
	if len(w) > MaxTermBytes {
		return
	}
	t.emit(t.fold(w), kindWord)
	if hasStructure(w) {
		t.parts(w)
	}
}

// compound emits the run, trimmed to its words, when it holds several.
func (t *tokenizer) compound() {
	if t.words > 1 && t.last-t.first <= MaxTermBytes {
		t.emit(t.fold(t.run[t.first:t.last]), kindCompound)
	}
}

// maxParts bounds the parts taken from one word (a long snake_case name
// or a dotted path); later parts are dropped.
const maxParts = 32

// parts emits the distinct pieces of a structured word, at least
// [MinPartRunes] long: first split at separators, then each piece at
// changes of shape.
func (t *tokenizer) parts(w string) {
	var raw [maxParts]string
	n := 0
	add := func(p string) {
		if n < maxParts && utf8.RuneCountInString(p) >= MinPartRunes {
			raw[n] = p
			n++
		}
	}
	for _, piece := range splitSeparators(w) {
		add(piece)
		if sub := splitShape(piece); len(sub) > 1 {
			for _, p := range sub {
				add(p)
			}
		}
	}
	whole := string(t.fold(w))
	seen := make([]string, 0, n)
	for _, p := range raw[:n] {
		f := t.fold(p)
		if string(f) == whole || slices.Contains(seen, string(f)) {
			continue
		}
		seen = append(seen, string(f))
		t.emit(f, kindPart)
	}
}

// fold case-folds s into the scratch buffer. ASCII, the common case, is
// lowered byte by byte without the Unicode tables.
func (t *tokenizer) fold(s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			t.buf = append(t.buf[:0], nfkc(folder.String(s))...)
			return t.buf
		}
	}
	b := append(t.buf[:0], s...)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	t.buf = b
	return b
}

// hasStructure reports whether w may split into parts: it holds a
// separator, an upper-case letter after its first rune, or both letters
// and digits. Most prose words have none, and skip the splitting.
func hasStructure(w string) bool {
	letters, digits := false, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= utf8.RuneSelf:
			return unicodeStructure(w)
		case 'a' <= c && c <= 'z':
			letters = true
		case 'A' <= c && c <= 'Z':
			letters = true
			if i > 0 {
				return true
			}
		case '0' <= c && c <= '9':
			digits = true
		default:
			return true
		}
	}
	return letters && digits
}

func unicodeStructure(w string) bool {
	letters, digits := false, false
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters = true
			if i > 0 && unicode.IsUpper(r) {
				return true
			}
		case unicode.IsDigit(r):
			digits = true
		case unicode.IsMark(r):
		default:
			return true
		}
	}
	return letters && digits
}

// splitSeparators splits w at every rune that is not a letter, digit or
// mark: the underscore, the dot of v1.2, the apostrophe of it's.
func splitSeparators(w string) []string {
	return strings.FieldsFunc(w, func(r rune) bool { return !isWordRune(r) })
}

// splitShape splits w where its shape changes: lower to upper (camelCase),
// an upper run into a capitalised word (HTTPServer → HTTP, Server), and
// letters to digits or back (utf8 → utf, 8).
func splitShape(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		if shapeBoundary(rs, i) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

func shapeBoundary(rs []rune, i int) bool {
	prev, cur := rs[i-1], rs[i]
	switch {
	case unicode.IsMark(cur):
		return false
	case unicode.IsDigit(prev) != unicode.IsDigit(cur):
		return true
	case unicode.IsLower(prev) && unicode.IsUpper(cur):
		return true
	case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
		return true
	}
	return false
}

// nfkc normalises s; ASCII is already in NFKC and is returned as is.
func nfkc(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFKC.String(s)
		}
	}
	return s
}

// unicodeRun feeds the UAX #29 segments of a run (uniseg) to word.
func (t *tokenizer) unicodeRun() {
	rest, state, off := t.run, -1, 0
	for len(rest) > 0 {
		var seg string
		seg, rest, state = uniseg.FirstWordInString(rest, state)
		if hasWordRune(seg) {
			t.word(off, off+len(seg))
		}
		off += len(seg)
	}
}

// asciiRun is UAX #29 for a run of ASCII without white space. Letters,
// digits and the underscore (ExtendNumLet) always join (WB5, WB8-WB10,
// WB13a-b); a single ':' joins two letters (WB6-7, MidLetter), ',' and ';'
// join two digits (WB11-12, MidNum), and '.' and '\” join two letters or
// two digits (MidNumLet, Single_Quote). Everything else stands alone.
func (t *tokenizer) asciiRun() {
	run := t.run
	i := 0
	for i < len(run) {
		if !asciiWordByte(run[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(run) {
			if asciiWordByte(run[j]) {
				j++
				continue
			}
			if j+1 < len(run) && asciiJoins(run[j-1], run[j], run[j+1]) {
				j += 2
				continue
			}
			break
		}
		if hasASCIIAlnum(run[i:j]) {
			t.word(i, j)
		}
		i = j
	}
}

// asciiJoins reports whether mid, between prev and next, stays inside a word.
func asciiJoins(prev, mid, next byte) bool {
	letters := asciiLetter(prev) && asciiLetter(next)
	digits := asciiDigit(prev) && asciiDigit(next)
	switch mid {
	case ':':
		return letters
	case ',', ';':
		return digits
	case '.', '\'':
		return letters || digits
	}
	return false
}

func asciiLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }
func asciiDigit(b byte) bool  { return '0' <= b && b <= '9' }
func asciiWordByte(b byte) bool {
	return asciiLetter(b) || asciiDigit(b) || b == '_'
}

func hasASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if asciiLetter(s[i]) || asciiDigit(s[i]) {
			return true
		}
	}
	return false
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func skipSpace(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if !unicode.IsSpace(r) {
			break
		}
		s = s[size:]
	}
	return s
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

func hasWordRune(seg string) bool {
	for _, r := range seg {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}
