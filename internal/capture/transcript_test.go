package capture

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// transcriptLines writes a Claude Code transcript: one JSON object a line.
func transcriptLines(t *testing.T, path string, lines ...map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return writeFile(t, path, b.String())
}

func userLine(id, ts string, content any) map[string]any {
	return map[string]any{"type": "user", "uuid": id, "timestamp": ts, "message": map[string]any{"role": "user", "content": content}}
}

func assistantLine(id string, blocks ...map[string]any) map[string]any {
	return map[string]any{"type": "assistant", "uuid": id, "timestamp": "2026-12-01T20:00:00Z",
		"message": map[string]any{"role": "assistant", "content": blocks}}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// TestTranscriptTurn: a turn is read back by the id of its user message,
// with as the assistant's text what the assistant said since the user's
// previous message (tool calls and results are not text), and the day of
// the message.
func TestTranscriptTurn(t *testing.T) {
	dir := t.TempDir()
	path := transcriptLines(t, filepath.Join(dir, "s.jsonl"),
		userLine("u1", "2026-12-01T19:58:00Z", "Can you check the Go version?"),
		assistantLine("a1", text("It is 1.25.4."), map[string]any{"type": "tool_use", "name": "Bash"}),
		userLine("u1r", "2026-12-01T19:59:00Z", []map[string]any{{"type": "tool_result", "content": "go1.25.4"}}),
		assistantLine("a2", text("Want me to bump Go to 1.26.1 in go.mod?")),
		userLine("u2", "2026-12-01T20:01:00.5Z", "yes"),
		assistantLine("a3", text("Done. Shall I also push?")),
		userLine("u3", "", []map[string]any{{"type": "text", "text": "no"}}),
	)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append([]byte("not json\n{\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"content\":\"\xff\"}}\n"), b...), 0o600)

	turn, day, err := ReadTranscriptTurn(path, "u2")
	if err != nil {
		t.Fatal(err)
	}
	if turn.User != "yes" || turn.Assistant != "It is 1.25.4.\nWant me to bump Go to 1.26.1 in go.mod?" {
		t.Fatalf("turn %+v", turn)
	}
	if want := time.Date(2026, 12, 1, 20, 1, 0, 0, time.UTC).Local().Format("2006-01-02"); day != want {
		t.Fatalf("day %q, want %q", day, want)
	}
	if got := FromTurn(turn, MaxChars); len(got) != 1 || got[0].Text != `The user agreed to "Want me to bump Go to 1.26.1 in go.mod?" (answered "yes")` {
		t.Fatalf("memories %+v", got)
	}
	if turn, day, err := ReadTranscriptTurn(path, "u3"); err != nil || turn.User != "no" || turn.Assistant != "Done. Shall I also push?" || day != "" {
		t.Fatalf("u3: %+v %q %v", turn, day, err)
	}
	for _, id := range []string{"a2", "u1r", "missing"} {
		if _, _, err := ReadTranscriptTurn(path, id); !errors.Is(err, ErrTurnNotFound) {
			t.Errorf("%s: %v, want not found", id, err)
		}
	}
	for _, bad := range [][2]string{{"s.jsonl", "u2"}, {path, ""}, {path, "has space"}, {path, strings.Repeat("x", MaxTurnID+1)}} {
		if _, _, err := ReadTranscriptTurn(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q accepted", bad[0], bad[1])
		}
	}
	// A line longer than MaxTranscriptLine is skipped, not read.
	long := filepath.Join(dir, "long.jsonl")
	f, _ := os.Create(long)
	j, _ := json.Marshal(userLine("big", "", strings.Repeat("a", MaxTranscriptLine)))
	f.Write(append(j, '\n'))
	j, _ = json.Marshal(userLine("after", "", "ok"))
	f.Write(append(j, '\n'))
	f.Close()
	if _, _, err := ReadTranscriptTurn(long, "big"); !errors.Is(err, ErrTurnNotFound) {
		t.Fatalf("an over-long line was read: %v", err)
	}
	if turn, _, err := ReadTranscriptTurn(long, "after"); err != nil || turn.User != "ok" {
		t.Fatalf("the line after an over-long one: %+v %v", turn, err)
	}
}

// TestPendingTurn: a turn handed to the hook while locked is listed by its
// transcript and message id only; the unlock reads it back and stores it
// once, and a second import stores nothing; a turn whose transcript is
// gone is dropped with its reason.
func TestPendingTurn(t *testing.T) {
	e := testEnv(t)
	path, open, _ := testVault(t)
	dir := t.TempDir()
	tr := transcriptLines(t, filepath.Join(dir, "session.jsonl"),
		assistantLine("a1", text("The 07:40 train to Utrecht is on time. Should I book the 07:40 train to Utrecht for Thursday?")),
		userLine("u1", "2026-12-01T20:01:00Z", "yes please"),
	)
	at := time.Date(2026, 12, 1, 20, 1, 5, 0, time.UTC)
	for range 2 {
		if err := AddPendingTurn(path, tr, "u1", "claude-code", at); err != nil {
			t.Fatal(err)
		}
	}
	if err := AddPendingTurn(path, filepath.Join(dir, "gone.jsonl"), "u9", "claude-code", at); err != nil {
		t.Fatal(err)
	}
	if err := AddPendingTurn(path, "relative.jsonl", "u1", "claude-code", at); err == nil {
		t.Fatal("a relative transcript was listed")
	}
	b, _ := os.ReadFile(PendingPath(path))
	want := `{
  "version": 2,
  "files": [
    {
      "kind": "turn",
      "path": "` + tr + `",
      "turn": "u1",
      "caller": "claude-code",
      "at": "2026-12-01T20:01:05Z"
    },
    {
      "kind": "turn",
      "path": "` + filepath.Join(dir, "gone.jsonl") + `",
      "turn": "u9",
      "caller": "claude-code",
      "at": "2026-12-01T20:01:05Z"
    }
  ]
}
`
	if string(b) != want {
		t.Fatalf("the list, not as FORMAT.md 7.9 gives it:\n%s\nwant\n%s", b, want)
	}
	if strings.Contains(string(b), "Utrecht") || strings.Contains(string(b), "please") {
		t.Fatal("the list holds the turn's text")
	}
	if got := WaitingSummary(mustPending(t, path)); got != "2 turns" {
		t.Fatalf("waiting %q", got)
	}

	res, err := ImportPending(path, e, open)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 1 || res.Stored != 1 || res.Left != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != "the transcript no longer exists" {
		t.Fatalf("result %+v", res)
	}
	if got := res.Summary(); got != "imported 1 new memories from 1 turn captured while the vault was locked" {
		t.Fatalf("summary %q", got)
	}
	v, release, err := open("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	recent, err := v.Recent(vault.RecentRequest{Limit: 10})
	release()
	if err != nil {
		t.Fatal(err)
	}
	want1 := `The user agreed to "Should I book the 07:40 train to Utrecht for Thursday?" (answered "yes please")`
	if len(recent) != 1 || !strings.HasPrefix(recent[0].Text, want1) || recent[0].Source != TurnSource ||
		recent[0].Importance != Decision || recent[0].Caller != "claude-code" {
		t.Fatalf("stored %+v", recent)
	}
	// Listed again (a second hook run on the same turn): stored once.
	AddPendingTurn(path, tr, "u1", "claude-code", at)
	if res, err := ImportPending(path, e, open); err != nil || res.Stored != 0 || res.Duplicates != 1 {
		t.Fatalf("second import: %+v %v", res, err)
	}
	if res, err := ImportPending(path, e, open); err != nil || res.Turns != 0 || res.Claims != 0 {
		t.Fatalf("third import: %+v %v", res, err)
	}
}

func mustPending(t *testing.T, path string) []PendingFile {
	t.Helper()
	l, err := Pending(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPendingVersion1: a list an older build wrote is read (its entries
// are memory files) and written back as version 2.
func TestPendingVersion1(t *testing.T) {
	path, _, _ := testVault(t)
	os.WriteFile(PendingPath(path), []byte(`{"version":1,"files":[{"path":"/a/CLAUDE.md","caller":"c","at":"2026-12-01T20:00:00Z"}]}`), 0o600)
	if err := AddPendingTurn(path, "/t/s.jsonl", "u1", "c", time.Now()); err != nil {
		t.Fatal(err)
	}
	l := mustPending(t, path)
	if len(l) != 2 || l[0].Kind != KindFile || l[0].Path != "/a/CLAUDE.md" || l[1].Kind != KindTurn {
		t.Fatalf("%+v", l)
	}
	if got := WaitingSummary(l); got != "1 memory file and 1 turn" {
		t.Fatalf("waiting %q", got)
	}
	for _, bad := range []string{
		`{"version":1,"files":[{"kind":"turn","path":"/t/s.jsonl","turn":"u1","caller":"c","at":"2026-12-01T20:00:00Z"}]}`,
		`{"version":2,"files":[{"kind":"link","path":"/t/s.jsonl","caller":"c","at":"2026-12-01T20:00:00Z"}]}`,
		`{"version":2,"files":[{"path":"/t/s.jsonl","caller":"c","at":"2026-12-01T20:00:00Z"}]}`,
		`{"version":2,"files":[{"kind":"turn","path":"/t/s.jsonl","caller":"c","at":"2026-12-01T20:00:00Z"}]}`,
		`{"version":2,"files":[{"kind":"file","path":"/a/CLAUDE.md","turn":"u1","caller":"c","at":"2026-12-01T20:00:00Z"}]}`,
	} {
		if _, err := parsePending([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
