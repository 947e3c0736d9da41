package capture

// A turn captured while the vault was locked is listed by where it is (its
// transcript and the id of the user's message there), never by what it
// says; the next unlock reads it back from the transcript
// ([ReadTranscriptTurn]) and stores what [FromTurn] makes of it.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on reading a transcript: a Claude Code transcript is JSON Lines,
// one message (or one block of one) a line, and a line holding a tool's
// output can be large. A longer line is skipped, not read; past
// MaxTranscriptBytes the turn is not looked for.
const (
	MaxTranscriptBytes = 1 << 30
	MaxTranscriptLine  = 8 << 20
	// MaxTurnID bounds a turn's id (Claude Code's are 36-byte UUIDs).
	MaxTurnID = 200
)

// ErrTurnNotFound: the transcript holds no user message with the turn's id
// (the session was cleared, or the id was never in it).
var ErrTurnNotFound = errors.New("the turn is not in its transcript")

// Listable says whether a turn names where it can be read back
// ([ValidTurnRef]): a host that gives its transcript path and the user
// message's id has its turns wait while the vault is locked.
func (t Turn) Listable() bool { return ValidTurnRef(t.TranscriptPath, t.TurnID) == nil }

// ValidTurnRef checks a turn's place: an absolute transcript path, and an
// id of 1 to [MaxTurnID] bytes of printable UTF-8 without spaces.
func ValidTurnRef(path, id string) error {
	switch {
	case path == "" || !filepath.IsAbs(path):
		return errors.New("capture: a turn's transcript_path must be an absolute path")
	case id == "" || len(id) > MaxTurnID || !utf8.ValidString(id) || strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0:
		return fmt.Errorf("capture: a turn's turn_id must be 1 to %d printable characters without spaces", MaxTurnID)
	}
	return nil
}

// ReadTranscriptTurn reads the turn whose user message has id from the
// transcript at path (a regular file, not a link in its last component):
// the user's text of that message, and as the assistant's the text of the
// assistant messages since the user's previous typed message. day is the
// message's date (YYYY-MM-DD, local time) when the line has a timestamp.
func ReadTranscriptTurn(path, id string) (t Turn, day string, err error) {
	fail := func(err error) (Turn, string, error) {
		return Turn{}, "", fmt.Errorf("capture: transcript %s: %w", path, err)
	}
	if err := ValidTurnRef(path, id); err != nil {
		return Turn{}, "", err
	}
	f, _, err := openRegular(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	t, day, err = TranscriptTurn(io.LimitReader(f, MaxTranscriptBytes), id)
	if err != nil {
		return fail(err)
	}
	return t, day, nil
}

// transcriptLine is the part of a transcript line the reader looks at:
// Claude Code's form, {"type": "user"|"assistant", "uuid": …, "timestamp":
// …, "message": {"role": …, "content": "text" | [{"type": "text", "text":
// …}, …]}}.
type transcriptLine struct {
	Type      string `json:"type"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	Message   struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// text is the line's typed text: a string content, or the text blocks of
// a list (tool calls and tool results are not typed text).
func (l transcriptLine) text() string {
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TranscriptTurn finds the turn whose user message has id in a JSON Lines
// transcript read from r (see [ReadTranscriptTurn]). A line that is not a
// JSON object, not UTF-8, or longer than [MaxTranscriptLine] is skipped;
// the assistant's text kept is at most [MaxHookInput] bytes, its end.
func TranscriptTurn(r io.Reader, id string) (Turn, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var assistant strings.Builder
	for {
		line, err := readLine(br)
		if len(line) > 0 && utf8.Valid(line) {
			var l transcriptLine
			if json.Unmarshal(line, &l) == nil {
				role := l.Message.Role
				if role == "" {
					role = l.Type
				}
				text := l.text()
				switch {
				case role == "user" && l.UUID == id:
					if strings.TrimSpace(text) == "" {
						return Turn{}, "", ErrTurnNotFound
					}
					return Turn{Assistant: assistant.String(), User: text}, lineDay(l.Timestamp), nil
				case role == "user" && strings.TrimSpace(text) != "":
					assistant.Reset()
				case role == "assistant" && text != "":
					if assistant.Len() > 0 {
						assistant.WriteByte('\n')
					}
					assistant.WriteString(text)
					if assistant.Len() > MaxHookInput {
						s := assistant.String()
						cut := len(s) - MaxHookInput
						for cut < len(s) && !utf8.RuneStart(s[cut]) {
							cut++
						}
						assistant.Reset()
						assistant.WriteString(s[cut:])
					}
				}
			}
		}
		if err == io.EOF {
			return Turn{}, "", ErrTurnNotFound
		}
		if err != nil {
			return Turn{}, "", err
		}
	}
}

// readLine reads one line without its newline; a line longer than
// [MaxTranscriptLine] is read through and returned empty.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) > MaxTranscriptLine+1 {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			return nil, err
		}
		return []byte(strings.TrimRight(string(line), "\r\n")), err
	}
}

// lineDay is the local date of an RFC 3339 timestamp, or "".
func lineDay(ts string) string {
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return at.Local().Format("2006-01-02")
}
