// Package render turns the results of compartment's operations (the
// shapes of internal/api and the reports of the packages below it) into
// the text the CLI prints on a terminal: tables, record blocks, one-line
// reports, the progress bar, and the --json encoding. It decides nothing
// and reads nothing: every function takes a result and a writer.
//
// It also owns what makes that text safe on a terminal: [Inert] for one
// value that came from outside, and [Writer], the stream every byte the
// CLI prints passes through.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// JSON writes v as indented JSON and a newline: the --json output of
// every command.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Inert makes one string that came from outside (a vault, a file, a
// pack, an argument, an error quoting any of them) safe to print on a
// terminal: control characters (C0, DEL, C1), Unicode bidirectional
// overrides and invalid UTF-8 are shown as Go-style escapes (\x1b, \u202e,
// \n), so a memory holding "ESC ] 0 ; … BEL" cannot set the terminal's
// title, clear the screen or fake output. A backslash is doubled so an
// escape shown cannot be faked either. --json output is never passed
// through it: JSON stays exact. [Writer] applies the same rule to every
// byte the CLI prints, as the net under any string a command forgot.
func Inert(s string) string {
	clean := true
	for _, r := range s {
		if r == '\\' || r == utf8.RuneError || UnsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return string(appendInert(nil, []byte(s), false))
}

// appendInert appends p to out with every unsafe character escaped. A
// stream (whole output, not one value) keeps its own line layout (newline
// and tab) and its backslashes, and escapes DEL as \u007f, so JSON passed
// through stays valid JSON with the same values: raw C0 bytes and invalid
// UTF-8 never occur in encoding/json's output, and \u escapes inside a
// string decode to the very characters they replace.
func appendInert(out, p []byte, stream bool) []byte {
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = fmt.Appendf(out, `\x%02x`, p[i])
		case stream && (r == '\n' || r == '\t'):
			out = append(out, p[i])
		case r == '\\' && !stream:
			out = append(out, `\\`...)
		case r == '\n':
			out = append(out, `\n`...)
		case r == '\t':
			out = append(out, `\t`...)
		case r == '\r':
			out = append(out, `\r`...)
		case r == 0x7f && stream:
			out = append(out, `\u007f`...)
		case UnsafeRune(r) && r < 0x80:
			out = fmt.Appendf(out, `\x%02x`, r)
		case UnsafeRune(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+n]...)
		}
		i += n
	}
	return out
}

// UnsafeRune reports characters a terminal acts on or that reorder text.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Writer is the CLI's stdout and stderr: every byte any command or error
// prints passes through [appendInert] in stream mode, so no path (a
// not-found message quoting an id, a --vault path, an import error quoting
// the file, a pack's version) can put a raw control character on the
// terminal. An incomplete UTF-8 sequence at the end of one write waits for
// the next. The MCP server and the progress bar, whose bytes are the
// program's own, write to the file underneath ([Raw]).
type Writer struct {
	w     io.Writer
	carry []byte
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (t *Writer) Write(p []byte) (int, error) {
	data := p
	if len(t.carry) > 0 {
		data = append(t.carry, p...)
		t.carry = nil
	}
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	t.carry = append([]byte(nil), data[cut:]...)
	if _, err := t.w.Write(appendInert(make([]byte, 0, cut+16), data[:cut], true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a sequence left incomplete at the end (escaped: it is not
// valid UTF-8).
func (t *Writer) Flush() {
	if len(t.carry) > 0 {
		t.w.Write(appendInert(nil, t.carry, true))
		t.carry = nil
	}
}

// Raw is the writer under a [Writer], for output that is the program's
// own bytes (the MCP protocol, the progress bar's redraws).
func Raw(w io.Writer) io.Writer {
	if t, ok := w.(*Writer); ok {
		return t.w
	}
	return w
}

// ErrorLine is an error as the one line the CLI prints: a newline quoted
// from an argument or a file cannot start a fake line of its own (the
// Writer underneath escapes every other control character).
func ErrorLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", `\n`)
}

// Bytes is a size for people: B, KiB, MiB or GiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
