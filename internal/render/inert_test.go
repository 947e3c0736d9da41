package render_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/render/rendertest"
)

// hostile and rawControl are the shared ones of [rendertest].
const hostile = rendertest.Hostile

var rawControl = rendertest.RawControl

func TestInert(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode ✓":  "plain text, ünïcode ✓",
		"\x1b]0;pwned\x07 title": `\x1b]0;pwned\x07 title`,
		"clear\x1b[2J":           `clear\x1b[2J`,
		"two\nlines\tand\r":      `two\nlines\tand\r`,
		"c1 \u009b31m":           `c1 \u009b31m`,
		"bidi \u202egnp.exe":     `bidi \u202egnp.exe`,
		"bad utf8 \xff\xfe":      `bad utf8 \xff\xfe`,
		`a \x1b that was typed`:  `a \\x1b that was typed`,
		"del \x7f":               `del \x7f`,
	} {
		if got := render.Inert(in); got != want {
			t.Errorf("Inert(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermWriter: a rune split across two writes is kept whole, JSON
// passed through stays the same JSON, and a sequence left incomplete at
// the end is shown escaped.
func TestTermWriter(t *testing.T) {
	var b bytes.Buffer
	w := render.NewWriter(&b)
	s := "ü→\u202e"
	for i := range len(s) {
		io.WriteString(w, s[i:i+1])
	}
	w.Flush()
	if b.String() != `ü→\u202e` {
		t.Errorf("split runes: %q", b.String())
	}
	b.Reset()
	in := map[string]string{"t": "del\x7f c1\u0085 bidi\u202e esc\x1b"}
	render.JSON(w, in)
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["t"] != in["t"] || rawControl(b.String()) != "" {
		t.Errorf("JSON through the writer: %q (%v)", b.String(), err)
	}
	b.Reset()
	w.Write([]byte("cut \xe2\x86"))
	w.Flush()
	if b.String() != `cut \xe2\x86` {
		t.Errorf("incomplete tail: %q", b.String())
	}
}

// FuzzInert: whatever the bytes, neither a single value (inert) nor a
// stream (termWriter, split at any point) puts a raw control character
// out, and a JSON document through the stream stays the same JSON.
func FuzzInert(f *testing.F) {
	for _, s := range []string{hostile, "plain", "ü→\u202e", "\xe2\x86", "a\\x1b", "\x00\x1f\x7f\u0085\u2028"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if bad := rawControl(render.Inert(s)); bad != "" || strings.ContainsAny(render.Inert(s), "\n\t") {
			t.Fatalf("Inert(%q) holds %q", s, bad)
		}
		var b bytes.Buffer
		w := render.NewWriter(&b)
		cut = min(max(cut, 0), len(s))
		io.WriteString(w, s[:cut])
		io.WriteString(w, s[cut:])
		w.Flush()
		if bad := rawControl(b.String()); bad != "" {
			t.Fatalf("stream of %q holds %q: %q", s, bad, b.String())
		}
		b.Reset()
		render.JSON(w, map[string]string{"s": s})
		w.Flush()
		var back map[string]string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["s"] != strings.ToValidUTF8(s, "\ufffd") {
			if utf8.ValidString(s) || err != nil {
				t.Fatalf("JSON of %q through the stream: %q %v", s, b.String(), err)
			}
		}
	})
}
