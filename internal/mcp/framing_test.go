package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineFramerBounds: messages up to the limit pass whole, a longer one
// is reported with its length and the stream goes on after it.
func TestLineFramerBounds(t *testing.T) {
	const max = 10
	in := "short\n" + strings.Repeat("a", max) + "\n" + strings.Repeat("b", max+1) + "\nafter\nlast"
	f := newLineFramer(strings.NewReader(in), max)
	type got struct {
		msg     string
		tooLong int64
	}
	var out []got
	for {
		msg, n, err := f.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got{string(msg), n})
	}
	want := []got{{"short", 0}, {strings.Repeat("a", max), 0}, {"", max + 1}, {"after", 0}, {"last", 0}}
	if len(out) != len(want) {
		t.Fatalf("got %+v", out)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("message %d: got %+v, want %+v", i, out[i], want[i])
		}
	}
}

// FuzzFraming: whatever the input and limit, the framer never returns a
// message over the limit, never holds more than the limit plus its read
// buffer, and accounts for every byte: messages, their newlines and the
// lengths of the dropped ones add up to the input.
func FuzzFraming(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), 8)
	f.Add([]byte("\n\n\nabc"), 1)
	f.Add(bytes.Repeat([]byte("x"), 300), 16)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		fr := newLineFramer(bytes.NewReader(in), max)
		var total int64
		for {
			msg, tooLong, err := fr.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(msg) > max {
				t.Fatalf("message of %d bytes over the limit %d", len(msg), max)
			}
			if tooLong > 0 && tooLong <= int64(max) {
				t.Fatalf("dropped a message of %d bytes, within the limit %d", tooLong, max)
			}
			if cap(fr.buf) > max+1+64<<10 {
				t.Fatalf("held %d bytes for a limit of %d", cap(fr.buf), max)
			}
			total += int64(len(msg)) + tooLong
			if total < int64(len(in)) && in[total] == '\n' {
				total++
			}
		}
		if total != int64(len(in)) {
			t.Fatalf("accounted for %d of %d bytes", total, len(in))
		}
	})
}
