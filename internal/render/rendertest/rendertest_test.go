package rendertest

import (
	"strings"
	"testing"
)

// RawControl finds each thing Hostile is made of on its own, the first
// one in a mix, and passes the CLI's own newlines and tabs.
func TestRawControl(t *testing.T) {
	if got := RawControl("plain text, ünïcode ✓\n\tindented"); got != "" {
		t.Errorf("plain text: RawControl found %q", got)
	}
	if got := RawControl(Hostile); got != "\x1b" {
		t.Errorf("RawControl(Hostile) = %q, want the first ESC", got)
	}
	// Each piece alone, after harmless text: the piece is what is found.
	for _, piece := range []string{"\x1b", "\x07", "\r", "\x7f", "\u009b", "\u202e", "\u2028", "\xff"} {
		if !strings.Contains(Hostile, piece) {
			t.Fatalf("Hostile lacks %q", piece)
		}
		if got := RawControl("text then " + piece + " more"); got != piece {
			t.Errorf("RawControl finds %q in text holding %q", got, piece)
		}
	}
}
