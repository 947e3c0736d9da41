package render

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Progress draws a one-line bar on a terminal and nothing elsewhere, so
// scripts and logs stay clean.
type Progress struct {
	w     io.Writer
	label string
	total int
	start time.Time
	last  time.Time
	on    bool
}

// NewProgress is a bar on w (drawn only when w is a terminal).
func NewProgress(w io.Writer, label string, total int) *Progress {
	w = Raw(w) // its redraws are its own bytes
	f, ok := w.(*os.File)
	return &Progress{w: w, label: label, total: total, start: time.Now(), on: ok && term.IsTerminal(int(f.Fd()))}
}

// Set shows done out of total (total ≤ 0, as on a pipe: a count and a
// rate).
func (p *Progress) Set(done int) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprint(p.w, p.line(done, time.Since(p.start)))
}

// line is the bar's text after done of total in elapsed time.
func (p *Progress) line(done int, elapsed time.Duration) string {
	if p.total <= 0 {
		return fmt.Sprintf("\r%s %d (%.0f/s)\033[K", p.label, done, float64(done)/max(elapsed.Seconds(), 0.001))
	}
	const width = 30
	frac := min(float64(done)/float64(p.total), 1)
	bar := strings.Repeat("#", int(frac*width)) + strings.Repeat(".", width-int(frac*width))
	return fmt.Sprintf("\r%s [%s] %3.0f%% %d/%d%s\033[K", p.label, bar, frac*100, done, p.total, RateETA(done, p.total, elapsed))
}

// RateETA is what a long step's progress says after its count: the rate
// so far and, once a second has passed and something was done, the time
// left at that rate ("  2195/s, 6m50s left"); "" before then.
func RateETA(done, total int, elapsed time.Duration) string {
	if done <= 0 || elapsed < time.Second {
		return ""
	}
	rate := float64(done) / elapsed.Seconds()
	s := fmt.Sprintf("  %.0f/s", rate)
	if left := total - done; left > 0 {
		s += ", " + shortDuration(time.Duration(float64(left)/rate*float64(time.Second))) + " left"
	}
	return s
}

// shortDuration is d rounded to what a person reads at a glance: 42s,
// 6m50s, 1h05m.
func shortDuration(d time.Duration) string {
	switch s := int(d.Round(time.Second).Seconds()); {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
}

// Report shows done out of total, for callbacks that learn the total as
// they go (func(done, total int)).
func (p *Progress) Report(done, total int) {
	p.total = total
	p.Set(done)
}

// Stage shows done out of total for a labelled stage (func(label, done,
// total)), clearing the line when the stage is complete.
func (p *Progress) Stage(label string, done, total int) {
	if label != p.label {
		p.start = time.Now() // the rate and the time left are the stage's
	}
	p.label = label
	p.Report(done, total)
	if done >= total {
		p.Done()
	}
}

// Done clears the line.
func (p *Progress) Done() {
	if p.on {
		p.last = time.Time{}
		fmt.Fprint(p.w, "\r\033[K")
	}
}
