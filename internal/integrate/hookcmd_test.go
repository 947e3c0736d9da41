package integrate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookCommand(t *testing.T) {
	cases := []struct {
		srv  Server
		pin  string
		want string
	}{
		{Server{Command: "compartment"}, "", "compartment --caller claude-code hook capture"},
		{Server{Command: "/opt/my tools/compartment", Caller: "work", Vault: "/v/a.vault"}, "",
			"'/opt/my tools/compartment' --caller work --vault /v/a.vault hook capture"},
		{Server{Command: "compartment", Vault: "/v/a.vault"}, "/home/u/it's.vault",
			`compartment --caller claude-code --vault '/home/u/it'\''s.vault' hook capture`},
	}
	for _, c := range cases {
		if got := HookCommand(c.srv, c.pin); got != c.want {
			t.Errorf("HookCommand(%+v, %q) = %s, want %s", c.srv, c.pin, got, c.want)
		}
	}
}

// TestShellQuoteRoundTrips: what ShellQuote writes, a real shell reads
// back as the same one word.
func TestShellQuoteRoundTrips(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell here")
	}
	for _, s := range []string{"plain", "/usr/bin/compartment", "with space", "it's", `a"b`, "$HOME", "`id`", "x;y", ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+ShellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("ShellQuote(%q) = %s: the shell read %q (%v)", s, ShellQuote(s), out, err)
		}
	}
}

// TestHookLogRotates: each problem is one line (a newline in it cannot
// start a second), and a log past 1 MiB moves aside.
func TestHookLogRotates(t *testing.T) {
	e := testEnv(t)
	HookLog(e, errors.New("first problem\nsecond line"))
	p := filepath.Join(StateDir(e), "hook.log")
	b, err := os.ReadFile(p)
	if err != nil || strings.Count(string(b), "\n") != 1 || !strings.HasSuffix(string(b), " first problem second line\n") {
		t.Fatalf("hook.log: %q %v", b, err)
	}
	if err := os.WriteFile(p, make([]byte, hookLogMax+1), 0o600); err != nil {
		t.Fatal(err)
	}
	HookLog(e, errors.New("after rotation"))
	if fi, err := os.Stat(p + ".1"); err != nil || fi.Size() != hookLogMax+1 {
		t.Errorf("the full log was not moved to hook.log.1: %v", err)
	}
	if b, _ := os.ReadFile(p); !strings.HasSuffix(string(b), " after rotation\n") || len(b) > 100 {
		t.Errorf("new hook.log: %q", b)
	}
}
