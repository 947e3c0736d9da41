package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClockFrom: a day runs from its midday, an RFC 3339 time from itself,
// nothing is the real clock, and anything else is refused by name.
func TestClockFrom(t *testing.T) {
	if now, err := ClockFrom(""); now != nil || err != nil {
		t.Fatalf("empty: %v %v", now != nil, err)
	}
	now, err := ClockFrom("2031-05-06")
	if err != nil {
		t.Fatal(err)
	}
	if got := now().In(time.Local).Format(DateLayout); got != "2031-05-06" {
		t.Errorf("day: now is %s", got)
	}
	now, err = ClockFrom("2030-01-02T03:04:05Z")
	if err != nil {
		t.Fatal(err)
	}
	if d := now().Sub(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)); d < 0 || d > time.Minute {
		t.Errorf("RFC 3339: off by %v", d)
	}
	if _, err := ClockFrom("next tuesday"); err == nil || !strings.Contains(err.Error(), EnvNow) {
		t.Errorf("nonsense: %v", err)
	}
}

// TestWriteAtomizePlan: one JSON line per item in a private new file; an
// existing file is never overwritten.
func TestWriteAtomizePlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	items := []AtomizeItem{{ID: "a1", Text: "one <b> & two"}, {ID: "b2", Text: "three"}}
	if err := WriteAtomizePlan(path, items); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "one <b> & two") {
		t.Fatalf("plan: %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if err := WriteAtomizePlan(path, nil); err == nil {
		t.Fatal("an existing plan was overwritten")
	}
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Fatal("the refused write changed the existing file")
	}
}
