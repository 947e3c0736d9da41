package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress draws a one-line bar on a terminal and nothing elsewhere, so
// scripts and logs stay clean.
type progress struct {
	w     io.Writer
	label string
	total int
	start time.Time
	last  time.Time
	on    bool
}

func newProgress(w io.Writer, label string, total int) *progress {
	w = rawWriter(w) // its redraws are its own bytes
	f, ok := w.(*os.File)
	return &progress{w: w, label: label, total: total, start: time.Now(), on: ok && term.IsTerminal(int(f.Fd()))}
}

// set shows done out of total (total ≤ 0, as on a pipe: a count and a
// rate).
func (p *progress) set(done int) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r%s %d (%.0f/s)\033[K", p.label, done, float64(done)/max(time.Since(p.start).Seconds(), 0.001))
		return
	}
	const width = 30
	frac := min(float64(done)/float64(p.total), 1)
	bar := strings.Repeat("#", int(frac*width)) + strings.Repeat(".", width-int(frac*width))
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%% %d/%d", p.label, bar, frac*100, done, p.total)
}

// report shows done out of total, for callbacks that learn the total as
// they go (func(done, total int)).
func (p *progress) report(done, total int) {
	p.total = total
	p.set(done)
}

// done clears the line.
func (p *progress) done() {
	if p.on {
		p.last = time.Time{}
		fmt.Fprint(p.w, "\r\033[K")
	}
}
