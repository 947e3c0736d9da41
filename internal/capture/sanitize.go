package capture

import (
	"regexp"
	"strings"
	"unicode"
)

// escapeRe matches terminal escape sequences whole: CSI (ESC [ … final),
// OSC (ESC ] … BEL or ESC \), and the two-byte ones (ESC and one
// character), so that stripping them leaves no "[31m" behind.
var escapeRe = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\x1b[@-_]|\u009b[0-?]*[ -/]*[@-~]")

// CleanText makes text that came from a host (a turn, a memory file) safe
// to store and to show: terminal escape sequences are removed whole, tabs
// become spaces, and every other control or format character (C0, C1,
// DEL, bidirectional overrides, zero-width characters) is dropped.
// Newlines are kept: they separate lines and bullets. The zero-width
// joiner is kept too, since emoji sequences need it.
func CleanText(s string) string {
	s = escapeRe.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\u2028' || r == '\u2029':
			return '\n'
		case r == '\t' || r == '\r' || r == '\v' || r == '\f':
			return ' '
		case r == '\u200d':
			return r
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar:
			return -1
		}
		return r
	}, s)
}
