package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParseInput: the hook's stdin is whatever a host (or anyone who can
// run the hook) sends. It never panics, and what it accepts is one of the
// two shapes.
func FuzzParseInput(f *testing.F) {
	f.Add(`{"hook_event_name":"PostToolUse","tool_name":"Write","cwd":"/x","tool_input":{"file_path":"CLAUDE.md"}}`)
	f.Add(`{"assistant":"Shall I?","user":"yes"}`)
	f.Add(`{"hook_event_name":null}`)
	f.Add(`[]`)
	e := testEnvFor(f.TempDir())
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseInput([]byte(in))
		if err != nil {
			return
		}
		if (got.Event == nil) == (got.Turn == nil) {
			t.Fatalf("%q: parsed as both or neither: %+v", in, got)
		}
		if got.Event != nil {
			if p := got.Event.MemoryFile(e); p != "" && !IsMemoryFile(e, p) {
				t.Fatalf("%q: MemoryFile %q is not a memory file", in, p)
			}
		}
		if got.Turn != nil {
			for _, m := range FromTurn(*got.Turn, MaxChars) {
				checkClean(t, m.Text)
			}
		}
	})
}

// FuzzSentences: no text is lost or invented; only the white space
// between sentences goes.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"Bump Go to 1.26.1 in go.mod. Then tag it.", "At 07:40? Yes!", "`a. B` c. D", "e.g. X. Y", "…", ". . .", "A.  B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sentences(s)
		joined := strings.Join(got, "")
		if strip(joined) != strip(s) {
			t.Fatalf("Sentences(%q) = %q: text changed", s, got)
		}
		for _, p := range got {
			if p == "" || p != strings.TrimSpace(p) {
				t.Fatalf("Sentences(%q): piece %q", s, p)
			}
		}
	})
}

func strip(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// FuzzCleanText: nothing that steers a terminal or reorders text
// survives.
func FuzzCleanText(f *testing.F) {
	f.Add("red \x1b[31mtext\x1b[0m \x1b]0;t\x07 \u202e \x00 \u009b2J")
	f.Fuzz(func(t *testing.T, s string) {
		checkClean(t, CleanText(s))
	})
}

func checkClean(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		if r != '\n' && r != '\u200d' && (unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("%q keeps control or format character %U", s, r)
		}
	}
}

// FuzzPendingList: the list beside the vault can be edited by anyone who
// can write there; reading it never panics, and what it accepts is
// absolute paths in valid UTF-8.
func FuzzPendingList(f *testing.F) {
	f.Add(`{"version":1,"files":[{"path":"/a/CLAUDE.md","caller":"claude-code","at":"2026-12-01T20:00:00Z"}]}`)
	f.Add(`{"version":1,"files":null}`)
	f.Add(`{"version":2}`)
	f.Add(`{"version":2,"files":[{"kind":"turn","path":"/t/s.jsonl","turn":"u1","caller":"c","at":"2026-12-01T20:00:00Z"}]}`)
	f.Add(`{"version":2,"files":[{"kind":"file","path":"/a/CLAUDE.md","turn":"x","caller":"c","at":"2026-12-01T20:00:00Z"}]}`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, doc string) {
		p := filepath.Join(dir, "v.pending.json")
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := readPending(p)
		if err != nil {
			return
		}
		for _, e := range l.Files {
			if !filepath.IsAbs(e.Path) || !utf8.ValidString(e.Path) {
				t.Fatalf("accepted %q", e.Path)
			}
			switch {
			case e.Kind == KindFile && e.Turn == "":
			case e.Kind == KindTurn && ValidTurnRef(e.Path, e.Turn) == nil:
			default:
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

// FuzzTranscriptTurn: a transcript is whatever the host (or anyone who can
// write the file) put there. Reading a turn back never panics, and what it
// returns is a turn with a reply.
func FuzzTranscriptTurn(f *testing.F) {
	f.Add("{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Shall I push?\"}]}}\n{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"yes\"}}\n", "u1")
	f.Add("{\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":[1,2]}}", "u1")
	f.Add("\n\n\r\n{}", "x")
	f.Fuzz(func(t *testing.T, doc, id string) {
		turn, day, err := TranscriptTurn(strings.NewReader(doc), id)
		if err != nil {
			return
		}
		if strings.TrimSpace(turn.User) == "" || !utf8.ValidString(turn.User) || !utf8.ValidString(turn.Assistant) {
			t.Fatalf("%q: turn %+v", doc, turn)
		}
		if day != "" && len(day) != len("2006-01-02") {
			t.Fatalf("day %q", day)
		}
		for _, m := range FromTurn(turn, MaxChars) {
			checkClean(t, m.Text)
		}
	})
}
