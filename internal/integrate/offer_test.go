package integrate

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestShortNamesResolve: every client's short name is one the command line
// takes for that very client, and Claude Code's is "claude".
func TestShortNamesResolve(t *testing.T) {
	e := testEnv(t)
	for i := range Clients {
		c := &Clients[i]
		got, err := Targets(e, []string{c.Short()}, false)
		if err != nil || len(got) != 1 || got[0].ID != c.ID {
			t.Errorf("%s: short name %q resolves to %v (%v)", c.ID, c.Short(), got, err)
		}
	}
	if c, _ := Find("claude-code"); c.Short() != "claude" {
		t.Errorf("Claude Code's short name is %q", c.Short())
	}
	if c, _ := Find("codex"); c.Short() != "codex" {
		t.Errorf("Codex's short name is %q", c.Short())
	}
}

// TestOffer: the clients installed here are asked about, Claude Code
// first; a yes goes to wire, a no to left; a client already wired is not
// asked about again; a client not installed is never asked about.
func TestOffer(t *testing.T) {
	e := testEnv(t)
	e.LookPath = func(bin string) (string, error) {
		if bin == "claude" || bin == "codex" {
			return "/usr/bin/" + bin, nil
		}
		return "", errors.New("not found")
	}
	var asked []string
	var wire, left []*Client
	sort := func(c *Client, yes bool) {
		if len(asked) != len(wire)+len(left)+1 {
			t.Fatalf("%s: the answer came before its question, or out of turn", c.ID)
		}
		if yes {
			wire = append(wire, c)
		} else {
			left = append(left, c)
		}
	}
	n := Offer(e, func(q string) bool {
		asked = append(asked, q)
		return strings.Contains(q, "Claude Code")
	}, sort)
	if n != len(asked) {
		t.Errorf("offered %d, asked %d", n, len(asked))
	}
	if len(asked) == 0 || asked[0] != "Found Claude Code. Connect it to the vault now? [y/N] " {
		t.Fatalf("questions %q", asked)
	}
	ids := func(cs []*Client) (out []string) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	if !slices.Equal(ids(wire), []string{"claude-code"}) || !slices.Contains(ids(left), "codex") {
		t.Fatalf("wire %v, left %v", ids(wire), ids(left))
	}
	if slices.Contains(ids(left), "cursor") {
		t.Errorf("a client not installed was offered: %v", ids(left))
	}
	st, err := LoadState(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Wire(e, st, wire[0], Server{Command: "/usr/local/bin/compartment"}, Options{}); err != nil {
		t.Fatal(err)
	}
	asked, wire, left = nil, nil, nil
	Offer(e, func(q string) bool { asked = append(asked, q); return true }, sort)
	if slices.Contains(ids(wire), "claude-code") {
		t.Errorf("a wired client was offered again: %q", asked)
	}
}

// TestServerFor: the defaults are left off the entry, anything else is
// named.
func TestServerFor(t *testing.T) {
	e := testEnv(t)
	s := ServerFor(e, "/opt/c/compartment", "/h/.compartment/memory.vault", "/h/.compartment/memory.vault", "user", "user")
	if s != (Server{Command: "/opt/c/compartment"}) {
		t.Errorf("defaults: %+v", s)
	}
	s = ServerFor(e, "/opt/c/compartment", "/work/other.vault", "/h/.compartment/memory.vault", "ci", "user")
	if s != (Server{Command: "/opt/c/compartment", Vault: "/work/other.vault", Caller: "ci"}) {
		t.Errorf("given: %+v", s)
	}
}
