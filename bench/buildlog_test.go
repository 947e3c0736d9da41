package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestBuildLogTenths: a build's log gets one line per tenth passed, not
// one per batch, and a batch that passes two tenths at once gets one.
func TestBuildLogTenths(t *testing.T) {
	var w bytes.Buffer
	b := buildLog{w: &w, n: 1000, start: time.Now().Add(-10 * time.Second)}
	for done := 0; done <= 1000; done += 50 {
		b.at(done)
	}
	lines := strings.Split(strings.TrimRight(w.String(), "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s", len(lines), w.String())
	}
	if !strings.HasPrefix(lines[0], "  100/1000 lines (10%)") || !strings.Contains(lines[0], "/s, ") || !strings.Contains(lines[0], " left") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.HasPrefix(lines[9], "  1000/1000 lines (100%)") || strings.Contains(lines[9], "left") {
		t.Errorf("last line %q", lines[9])
	}
	w.Reset()
	b = buildLog{w: &w, n: 1000, start: time.Now()}
	b.at(350) // three tenths in one batch: one line
	b.at(360)
	if got := strings.Count(w.String(), "\n"); got != 1 {
		t.Errorf("%d lines after passing three tenths at once, want 1: %q", got, w.String())
	}
}
