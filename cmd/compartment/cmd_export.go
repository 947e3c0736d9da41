package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/vault"
)

// ExportCmd writes the vault as plaintext JSONL.
type ExportCmd struct {
	Plaintext string `help:"Write every memory and relation, unencrypted, to this file (- for stdout)." required:"" placeholder:"OUT"`
	JSON      bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ExportCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	if c.Plaintext == "-" {
		_, err := v.Export(app.Stdout)
		return err
	}
	n, err := vault.ExportFile(v, c.Plaintext)
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, api.Export{Path: c.Plaintext, Lines: n})
	}
	fmt.Fprintf(app.Stderr, "wrote %d lines to %s (plaintext: keep it safe, delete it when done)\n", n, c.Plaintext)
	return nil
}

// ImportCmd reads JSONL into the vault.
type ImportCmd struct {
	File   string `arg:"" help:"JSONL file: an export, or lines with at least \"text\" (- for stdin)."`
	Source string `help:"Source for lines that have none (default: \"imported from FILE\")."`
	JSON   bool   `help:"Print the result as JSON." name:"json"`
}

func (c *ImportCmd) Run(app *App) error {
	var r io.Reader = app.Stdin
	total := 0
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
		// Only a regular file can be read twice: a pipe (/dev/stdin,
		// <(cat f)) or a device is read once, as a stream, and the bar
		// shows a count and a rate instead of a total.
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			total = countLines(f)
		}
	}
	source := c.Source
	if source == "" {
		source = "imported from " + filepath.Base(c.File)
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	bar := newProgress(app.Stderr, "importing", total)
	start := time.Now()
	res, err := v.Import(r, source, bar.set)
	bar.done()
	if err != nil {
		return errors.Join(err, fmt.Errorf("%d memories were stored before the error", res.Stored))
	}
	rep := api.Import{ImportResult: res, Seconds: time.Since(start).Seconds(), PeakRSSMB: peakRSSMB()}
	rep.LinesPerS = float64(res.Lines) / max(rep.Seconds, 1e-3)
	if c.JSON {
		return printJSON(app.Stdout, rep)
	}
	fmt.Fprintf(app.Stdout, "imported %d memories and %d relations from %d lines in %.1f s (%.0f lines/s", res.Stored, res.Relations, res.Lines, rep.Seconds, rep.LinesPerS)
	if rep.PeakRSSMB > 0 {
		fmt.Fprintf(app.Stdout, ", peak memory %.0f MB", rep.PeakRSSMB)
	}
	fmt.Fprintln(app.Stdout, ")")
	for _, line := range importSkips(res) {
		fmt.Fprintf(app.Stdout, "  skipped %s\n", line)
	}
	return nil
}

// peakRSSMB is this process's peak resident set (VmHWM), in MB; 0 where
// the system does not say (no /proc).
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	return 0
}

// importSkips says, one line per reason, what an import skipped and why.
func importSkips(res vault.ImportResult) []string {
	var out []string
	if res.Present > 0 {
		out = append(out, fmt.Sprintf("%d already in the vault (same id, claim or relation)", res.Present))
	}
	if res.Reference > 0 {
		out = append(out, fmt.Sprintf("%d reference facts: the vault has its own (`compartment reference update` refreshes them)", res.Reference))
	}
	if res.Packs > 0 {
		out = append(out, fmt.Sprintf("%d pack records: packs are installed whole and signed, with `compartment pack install`", res.Packs))
	}
	return out
}

// countLines counts the newlines of a regular file for the progress bar,
// reading it in small pieces, and rewinds it; 0 when unknown.
func countLines(f *os.File) int {
	defer f.Seek(0, io.SeekStart)
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}
