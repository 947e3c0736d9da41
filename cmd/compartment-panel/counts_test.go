//go:build cgo

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCountsLeadWithYourOwn: the panel says how many memories are the
// user's own first; reference facts and packs follow.
func TestCountsLeadWithYourOwn(t *testing.T) {
	for _, c := range []struct {
		st   State
		want string
	}{
		{State{Path: "/v", Live: 7241, Organic: 3, Reference: 7238}, "3 memories of your own (and 7238 reference facts)"},
		{State{Path: "/v", Live: 7250, Organic: 1, Reference: 7238, Packs: 11}, "1 memory of your own (and 7238 reference facts, 11 from packs)"},
		{State{Path: "/v", Live: 0}, "0 memories of your own"},
		{State{Path: "/v", Live: 12, Organic: 12}, "12 memories of your own"},
	} {
		if got := view(c.st, nil, false).Counts; got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}

// TestNewestOwnIsNewestFirst: the panel lists the five newest memories,
// newest first, whatever order `recent` prints them in.
func TestNewestOwnIsNewestFirst(t *testing.T) {
	cli := newHome(t)
	mustRun(t, cli, testPass+"\n", "init", "--no-app", "--no-integrate", "--no-reference", "--passphrase-stdin")
	t.Cleanup(func() { cli.run("", nil, "lock") })
	var want []string
	for i := range 7 {
		text := fmt.Sprintf("Memory number %d is about topic %c", i, 'A'+i)
		mustRun(t, cli, "", "store", "--source", "from chat", text)
		want = append([]string{text}, want...)
	}
	if got := cli.newestOwn(); !slices.Equal(got, want[:maxNewest]) {
		t.Fatalf("newest: %q\nwant %q", got, want[:maxNewest])
	}
}

// TestPanelUnlockImportsPending: a memory file Claude Code wrote while the
// vault was locked is stored when the panel unlocks it.
func TestPanelUnlockImportsPending(t *testing.T) {
	cli := newVault(t)
	mem := filepath.Join(os.Getenv("HOME"), ".claude", "projects", "-home-me-app", "memory", "notes.md")
	os.MkdirAll(filepath.Dir(mem), 0o700)
	if err := os.WriteFile(mem, []byte("- We decided to rotate the on-call rota every Monday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ev, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": mem}})
	mustRun(t, cli, string(ev), "--caller", "claude-code", "hook", "capture")
	if err := cli.Unlock(testPass); err != nil {
		t.Fatal(err)
	}
	if got := cli.newestOwn(); len(got) == 0 || !strings.HasPrefix(got[0], "We decided to rotate the on-call rota every Monday.") {
		t.Fatalf("after the panel's unlock, newest: %q", got)
	}
}
