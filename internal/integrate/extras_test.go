package integrate

import (
	"os"
	"strings"
	"testing"
)

// The Claude wiring steps, now here rather than in cmd: the managed
// CLAUDE.md block, the capture hook (unless NoHook) and the skill, each
// recorded for uninstall.
func TestWireExtrasClaude(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("claude-code")
	hook := "/usr/local/bin/compartment hook capture"
	steps, err := WireExtras(e, st, c, Server{Command: "compartment"}, ExtraOptions{HookCommand: hook})
	if err != nil {
		t.Fatal(err)
	}
	var what []string
	for _, s := range steps {
		what = append(what, s.What)
		if s.Change.Action != "created" {
			t.Errorf("%s: %+v", s.What, s.Change)
		}
	}
	if strings.Join(what, "|") != "Claude Code: /compartmentalize skill|Claude Code: memory instructions in CLAUDE.md|Claude Code: capture hook" {
		t.Fatalf("steps %q", what)
	}
	if b, _ := os.ReadFile(ClaudeMD(e)); !strings.Contains(string(b), blockBegin) {
		t.Fatal("no managed block in CLAUDE.md")
	}
	if cmds, _ := HookCommands(e); len(cmds) != 1 || cmds[0] != hook {
		t.Fatalf("hooks %q", cmds)
	}
	if len(st.Items) != 3 {
		t.Fatalf("state items %+v", st.Items)
	}
	// NoHook and NoSkill leave those out; a dry run writes nothing.
	e2 := testEnv(t)
	st2, _ := LoadState(e2)
	steps, _ = WireExtras(e2, st2, c, Server{Command: "compartment"}, ExtraOptions{NoHook: true, NoSkill: true, Options: Options{DryRun: true}})
	if len(steps) != 1 || steps[0].Change.Action != "created" {
		t.Fatalf("dry run steps %+v", steps)
	}
	if _, err := os.Stat(ClaudeMD(e2)); err == nil {
		t.Fatal("a dry run wrote CLAUDE.md")
	}
}
