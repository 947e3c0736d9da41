// Package rendertest holds what the tests of terminal output share: a
// string of everything a terminal acts on, and the check that printed text
// holds none of it raw. It is for tests only (like net/http/httptest); the
// rule of what is unsafe stays in [render.UnsafeRune].
package rendertest

import (
	"unicode/utf8"

	"github.com/compartment/compartment/internal/render"
)

// Hostile is a string of everything a terminal acts on: an OSC title set,
// a screen clear, BEL, a carriage return that rewrites the line, DEL, a C1
// CSI, a bidi override, a line separator and a byte that is not UTF-8.
const Hostile = "\x1b]0;pwned\x07\x1b[2J\rfake\x7f\u009b31m\u202egnp.exe\u2028\xff"

// RawControl returns the first character in s a terminal would act on,
// other than the newline and tab that lay out the CLI's own lines, or "".
func RawControl(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return s[i : i+1]
		}
		if r != '\n' && r != '\t' && render.UnsafeRune(r) {
			return string(r)
		}
		i += n
	}
	return ""
}
