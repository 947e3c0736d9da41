package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Each of the CLI errors #28 lists is one sentence with a next step, and
// the step it names works.
func TestErrorSentences(t *testing.T) {
	h := newHome(t, "")
	h.init()
	cases := []struct {
		args []string
		want []string // all of these, in the one line
		not  string   // and never this
	}{
		{[]string{"store", "-x marks the spot", "--source", "from chat"},
			[]string{`"-x marks the spot" was read as a flag`, `compartment store --source "from chat" -- "-x marks the spot"`}, "unknown flag"},
		{[]string{"store"}, []string{"store needs the memory's text and where it came from", `--source "from chat"`}, "missing flags"},
		{[]string{"store", "Priya likes tea"}, []string{"store needs --source, where the fact came from"}, "missing flags"},
		{[]string{"store", "--source", "from chat"}, []string{"store needs the memory's text"}, `expected "<text>"`},
		{[]string{"search", "tea", "--top-k", "-1"}, []string{"--top-k takes a whole number of 1 or more, not -1", "leave it out"}, "perhaps try"},
		{[]string{"search", "tea", "--top-k=-1"}, []string{"--top-k takes a whole number of 1 or more, not -1", "leave it out"}, "is negative"},
		{[]string{"store", "Priya likes tea", "--source", "from chat", "--importance", "5"},
			[]string{"--importance must be between 0 and 1, not 5"}, ""},
		{[]string{"store", "Priya likes tea", "--source", "from chat", "--importance", "-0.5"},
			[]string{"--importance must be between 0 and 1, not -0.5"}, "short flag"},
		{[]string{"status", "--bogus"}, []string{"--bogus is not a flag of `compartment status`", "compartment status --help"}, ""},
	}
	for _, c := range cases {
		out, code := h.run("", h.bin, c.args...)
		line := strings.TrimSpace(out)
		if i := strings.LastIndex(line, "compartment: "); i >= 0 {
			line = line[i:]
		}
		if code == 0 || strings.Count(line, "\n") > 0 {
			t.Errorf("%v: exit %d, want one line of error:\n%s", c.args, code, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("%v: %q does not say %q", c.args, line, w)
			}
		}
		if c.not != "" && strings.Contains(out, c.not) {
			t.Errorf("%v: still says %q: %s", c.args, c.not, out)
		}
	}
	// Nothing above was stored (importance 5 is refused, not clamped).
	if out := h.compartment("recent", "--json"); strings.Contains(out, "Priya") {
		t.Fatalf("a refused store stored something:\n%s", out)
	}
	// The way the sentence says works.
	h.compartment("store", "--source", "from chat", "--", "-x marks the spot")
	if out := h.compartment("recent"); !strings.Contains(out, "-x marks the spot") {
		t.Fatalf("store -- \"-x...\" did not store it:\n%s", out)
	}
	// A wrong passphrase says what to do, and still says "wrong
	// passphrase" (the panel matches it).
	h.compartment("lock")
	out, code := h.run("not the passphrase\n", h.bin, "unlock", "--passphrase-stdin")
	for _, w := range []string{"wrong passphrase or keyfile for " + h.home, "type the passphrase again", "--keyfile"} {
		if code == 0 || !strings.Contains(out, w) {
			t.Errorf("wrong passphrase: exit %d, %q does not say %q", code, out, w)
		}
	}
	if strings.Contains(out, "vaultfmt:") || strings.Contains(out, "unlock /") {
		t.Errorf("wrong passphrase still shows the package chain: %q", out)
	}
	// A wrong COMPARTMENT_PASSPHRASE (a fresh session directory: no
	// unlock and no lock for it to find first) is named, not typed again.
	// The same for the commands that read the passphrase itself rather
	// than take an unlocked session (unlock, rekey, 2fa).
	typed := out
	if strings.Contains(typed, "COMPARTMENT_PASSPHRASE") {
		t.Errorf("a typed wrong passphrase names the environment:\n%s", typed)
	}
	env := h.env
	for _, args := range [][]string{{"search", "tea"}, {"unlock"}, {"rekey", "--new-passphrase-stdin"}, {"2fa", "enable"}} {
		h.env = append(append([]string(nil), env...), "COMPARTMENT_PASSPHRASE=not the passphrase",
			"COMPARTMENT_SESSION_DIR="+filepath.Join(t.TempDir(), "session"))
		out, code = h.run("", h.bin, args...)
		h.env = env
		for _, w := range []string{"wrong passphrase or keyfile for " + h.home, "COMPARTMENT_PASSPHRASE does not open it", "--keyfile"} {
			if code == 0 || !strings.Contains(out, w) {
				t.Errorf("%v with a wrong COMPARTMENT_PASSPHRASE: exit %d, %q does not say %q", args, code, out, w)
			}
		}
		if strings.Contains(out, "type the passphrase again") {
			t.Errorf("%v with a wrong COMPARTMENT_PASSPHRASE says to type it again:\n%s", args, out)
		}
	}
}
