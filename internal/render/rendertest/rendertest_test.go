package rendertest

import "testing"

// RawControl finds each thing Hostile is made of on its own, the first
// one in a mix, and passes the CLI's own newlines and tabs.
func TestRawControl(t *testing.T) {
	for s, want := range map[string]string{
		"plain text, ünïcode ✓\n\tindented": "",
		"title \x1b]0;pwned":                "\x1b",
		"bell \x07":                         "\x07",
		"rewrite\rfake":                     "\r",
		"del \x7f":                          "\x7f",
		"c1 \u009b31m":                      "\u009b",
		"bidi \u202egnp.exe":                "\u202e",
		"line\u2028separator":               "\u2028",
		"not utf-8 \xff":                    "\xff",
		Hostile:                             "\x1b",
	} {
		if got := RawControl(s); got != want {
			t.Errorf("RawControl(%q) = %q, want %q", s, got, want)
		}
	}
}
