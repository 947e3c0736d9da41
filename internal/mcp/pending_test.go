package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/capture"
)

// TestUnlockImportsPending: memory files the capture hook listed while the
// vault was locked are stored when an agent unlocks through memory_unlock,
// as the caller that listed them, and so is a turn listed by its place in
// a transcript; another caller's stay listed.
func TestUnlockImportsPending(t *testing.T) {
	f := newFixture(t)
	f.setSetting(t, "unlock_tool_enabled", "true")
	env := f.env(false)
	mem := filepath.Join(env["HOME"], ".claude", "projects", "-home-me-app", "memory", "decisions.md")
	os.MkdirAll(filepath.Dir(mem), 0o700)
	if err := os.WriteFile(mem, []byte("- We decided to keep the staging database on port 5433.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(env["HOME"], "work", "CLAUDE.md")
	os.MkdirAll(filepath.Dir(other), 0o700)
	os.WriteFile(other, []byte("- Always run the linter first.\n"), 0o600)
	if err := capture.AddPending(f.vault, mem, "claude-code", time.Now()); err != nil {
		t.Fatal(err)
	}
	capture.AddPending(f.vault, other, "codex", time.Now())
	tr := filepath.Join(env["HOME"], ".claude", "projects", "-home-me-app", "s1.jsonl")
	os.WriteFile(tr, []byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Should I book the 07:40 train to Utrecht for Thursday?"}]}}`+"\n"+
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"yes"}}`+"\n"), 0o600)
	if err := capture.AddPendingTurn(f.vault, tr, "u1", "claude-code", time.Now()); err != nil {
		t.Fatal(err)
	}

	b := startBridge(t)
	b.connect(env, "--caller", "claude-code")
	defer b.close()
	var un struct{ Locked bool }
	b.ok("memory_unlock", map[string]any{"passphrase": testPassphrase}, &un)
	var recent any
	b.ok("memory_recent", map[string]any{"limit": 10}, &recent)
	got, _ := json.Marshal(recent)
	if !strings.Contains(string(got), "We decided to keep the staging database on port 5433.") {
		t.Fatalf("the pending file was not imported by memory_unlock: %s", got)
	}
	if !strings.Contains(string(got), `The user agreed to \"Should I book the 07:40 train to Utrecht for Thursday?\" (answered \"yes\")`) {
		t.Fatalf("the pending turn was not imported by memory_unlock: %s", got)
	}
	if strings.Contains(string(got), "linter") {
		t.Fatalf("another caller's file was stored as this caller: %s", got)
	}
	left, err := capture.Pending(f.vault)
	if err != nil || len(left) != 1 || left[0].Caller != "codex" {
		t.Fatalf("left on the list: %+v %v", left, err)
	}
}
