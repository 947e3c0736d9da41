package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hookEventFor is the PostToolUse event Claude Code sends after writing
// path.
func hookEventFor(h *homeEnv, path string) string {
	ev, _ := json.Marshal(map[string]any{
		"session_id": "s1", "cwd": h.home, "hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": path, "content": "..."},
	})
	return string(ev)
}

// recentTexts are the claims of `recent` (without their provenance).
func recentTexts(h *homeEnv) map[string]float64 {
	var recent []struct {
		Text       string  `json:"text"`
		Importance float64 `json:"importance"`
	}
	if err := json.Unmarshal([]byte(h.compartment("recent", "--json", "--limit", "100")), &recent); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range recent {
		out[strings.SplitN(r.Text, " [", 2)[0]] = r.Importance
	}
	return out
}

// TestHookWhileLocked: Claude Code writes memory files during a break,
// after auto-lock; the hook lists their paths, `hook status` counts them,
// `compartment unlock` imports them, and the memories are present. The
// attacks of #27 item 6 ride along: a CLAUDE.md linked to a credentials
// file and a binary file in the memory directory are never listed or
// stored, locked or not.
func TestHookWhileLocked(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links as on Unix")
	}
	h := newHome(t, "")
	h.init()
	h.compartment("lock")

	mem := h.write(".claude/projects/-home-me-app/memory/decisions.md",
		"- We decided to release from the main branch only.\n- Staging listens on port 5433.\n")
	proj := h.write("work/app/CLAUDE.md", "- Always run the migrations before the tests.\n")
	secret := h.write(".aws/credentials", "[default]\naws_secret_access_key = wJalrXUtnFEMIK7MDENG\n")
	linked := filepath.Join(h.home, "work", "evil", "CLAUDE.md")
	os.MkdirAll(filepath.Dir(linked), 0o700)
	if err := os.Symlink(secret, linked); err != nil {
		t.Fatal(err)
	}
	binary := h.write(".claude/projects/-home-me-app/memory/blob.md", "\x7fELF\x02\x01\x01\x00\x00\x00binary. Junk. More junk.\n")

	for _, p := range []string{mem, proj, linked, binary, mem} {
		if out, code := h.run(hookEventFor(h, p), h.bin, "hook", "capture"); code != 0 || out != "" {
			t.Fatalf("locked hook on %s: exit %d, output %q", p, code, out)
		}
	}
	list, err := os.ReadFile(filepath.Join(h.home, ".compartment", "memory.vault.pending.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(list), "aws_secret") || strings.Contains(string(list), "release from the main") ||
		strings.Contains(string(list), linked) || strings.Contains(string(list), binary) {
		t.Fatalf("the pending list holds content or a refused file:\n%s", list)
	}
	var status struct {
		Pending       int  `json:"pending"`
		VaultUnlocked bool `json:"vault_unlocked"`
	}
	json.Unmarshal([]byte(h.compartment("hook", "status", "--json")), &status)
	if status.Pending != 2 || status.VaultUnlocked {
		t.Fatalf("hook status while locked: %+v (want 2 waiting)\n%s", status, list)
	}
	if out := h.compartment("hook", "status"); !strings.Contains(out, "waiting: 2 memory files") {
		t.Fatalf("hook status does not say what waits:\n%s", out)
	}

	out, code := h.run(integratePass+"\n", h.bin, "unlock", "--passphrase-stdin")
	if code != 0 || !strings.Contains(out, "imported 3 new memories from 2 memory files") {
		t.Fatalf("unlock: exit %d\n%s", code, out)
	}
	got := recentTexts(h)
	for text, imp := range map[string]float64{
		"We decided to release from the main branch only.": 0.90,
		"Staging listens on port 5433.":                    0.75,
		"Always run the migrations before the tests.":      0.90,
	} {
		if got[text] != imp {
			t.Errorf("%q: importance %v after unlock, want %v\n%v", text, got[text], imp, got)
		}
	}
	for text := range got {
		if strings.Contains(text, "aws_secret") || strings.Contains(strings.ToLower(text), "junk") {
			t.Errorf("stored from a refused file: %q", text)
		}
	}
	json.Unmarshal([]byte(h.compartment("hook", "status", "--json")), &status)
	if status.Pending != 0 || !status.VaultUnlocked {
		t.Fatalf("hook status after unlock: %+v", status)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".compartment", "memory.vault.pending.json")); !os.IsNotExist(err) {
		t.Fatal("the empty pending list was left behind")
	}

	// Unlocked, the refused files are still refused, and say why in
	// hook.log; nothing is printed where Claude Code would show it.
	for _, p := range []string{linked, binary} {
		if out, code := h.run(hookEventFor(h, p), h.bin, "hook", "capture"); code != 0 || out != "" {
			t.Fatalf("unlocked hook on %s: exit %d, %q", p, code, out)
		}
	}
	if n := len(recentTexts(h)); n != len(got) {
		t.Fatalf("a refused file stored %d memories", n-len(got))
	}
	log := read(t, filepath.Join(h.home, ".compartment", "hook.log"))
	if !strings.Contains(log, "a link leads outside the memory files") || !strings.Contains(log, "not UTF-8 text") {
		t.Fatalf("hook.log:\n%s", log)
	}
}

// TestHookTurnHardening: a turn's control characters are not stored, and
// "ok thanks" is small talk, not a decision.
func TestHookTurnHardening(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	h.init()
	for _, turn := range []string{
		`{"assistant":"Want me to push the branch?","user":"ok thanks"}`,
		`{"assistant":"Done.","user":"My editor is \u001b[31mHelix\u001b[0m\u0007 and I prefer\u202e tabs."}`,
		`{"assistant":"Anything else?","user":"yes"}`,
		`{"assistant":"Want me to bump Go to 1.26.1 in go.mod?","user":"yes"}`,
	} {
		if out, code := h.run(turn, h.bin, "hook", "capture"); code != 0 || out != "" {
			t.Fatalf("capture %s: exit %d, %q", turn, code, out)
		}
	}
	got := recentTexts(h)
	want := map[string]float64{
		"ok thanks":                             0.20,
		"My editor is Helix and I prefer tabs.": 0.80,
		`The user agreed to "Want me to bump Go to 1.26.1 in go.mod?" (answered "yes")`: 0.90,
	}
	if len(got) != len(want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	for text, imp := range want {
		if got[text] != imp {
			t.Errorf("%q at %v, want %v (stored: %v)", text, got[text], imp, got)
		}
	}
}

// TestHookTurnWhileLocked: a consent turn handed to the hook while the
// vault is locked waits by its place in the transcript (never its text),
// `hook status` counts it, `compartment unlock` stores the decision, and a
// second unlock stores nothing new.
func TestHookTurnWhileLocked(t *testing.T) {
	t.Parallel()
	h := newHome(t, "")
	h.init()
	h.compartment("lock")
	line := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) + "\n" }
	tr := h.write(".claude/projects/-home-me-app/5f1c.jsonl",
		line(map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"role": "assistant",
			"content": []map[string]any{{"type": "text", "text": "The tests pass. Want me to bump Go to 1.26.1 in go.mod?"}}}})+
			line(map[string]any{"type": "user", "uuid": "u1", "timestamp": "2026-12-01T20:01:00Z", "message": map[string]any{"role": "user", "content": "yes"}}))
	turn, _ := json.Marshal(map[string]any{"assistant": "The tests pass. Want me to bump Go to 1.26.1 in go.mod?", "user": "yes",
		"transcript_path": tr, "turn_id": "u1"})
	for range 2 {
		if out, code := h.run(string(turn), h.bin, "hook", "capture"); code != 0 || out != "" {
			t.Fatalf("locked hook on a turn: exit %d, output %q", code, out)
		}
	}
	list := read(t, filepath.Join(h.home, ".compartment", "memory.vault.pending.json"))
	if strings.Contains(list, "go.mod") || strings.Contains(list, "yes") || !strings.Contains(list, `"turn": "u1"`) {
		t.Fatalf("the pending list holds the turn's text, or not its place:\n%s", list)
	}
	if out := h.compartment("hook", "status"); !strings.Contains(out, "waiting: 1 turn captured while the vault was locked") {
		t.Fatalf("hook status does not count the turn:\n%s", out)
	}
	out, code := h.run(integratePass+"\n", h.bin, "unlock", "--passphrase-stdin")
	if code != 0 || !strings.Contains(out, "imported 1 new memories from 1 turn") {
		t.Fatalf("unlock: exit %d\n%s", code, out)
	}
	want := `The user agreed to "Want me to bump Go to 1.26.1 in go.mod?" (answered "yes")`
	got := recentTexts(h)
	if got[want] != 0.90 || len(got) != 1 {
		t.Fatalf("after unlock: %v, want %q at 0.90", got, want)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".compartment", "memory.vault.pending.json")); !os.IsNotExist(err) {
		t.Fatal("the empty pending list was left behind")
	}
	h.compartment("lock")
	if out, code := h.run(integratePass+"\n", h.bin, "unlock", "--passphrase-stdin"); code != 0 || strings.Contains(out, "imported") {
		t.Fatalf("second unlock: exit %d\n%s", code, out)
	}
	if got := recentTexts(h); len(got) != 1 {
		t.Fatalf("the second unlock stored more: %v", got)
	}
	// A turn without a place is still not stored while locked, and
	// hook.log says why.
	h.compartment("lock")
	h.run(`{"assistant":"Shall I push the branch?","user":"yes"}`, h.bin, "hook", "capture")
	if log := read(t, filepath.Join(h.home, ".compartment", "hook.log")); !strings.Contains(log, "names no transcript_path and turn_id") {
		t.Fatalf("hook.log:\n%s", log)
	}
}
