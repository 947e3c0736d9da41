package integrate

import (
	"bytes"
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// The TOML editor owns one table, [mcp_servers.compartment] (Codex CLI),
// and edits it as text: the table is appended to the end of the file, or
// its lines are replaced or removed, and no other byte moves. No Go TOML
// library round-trips comments and layout (go-toml/v2 and BurntSushi/toml
// both decode into values and re-encode from them, dropping comments and
// reordering keys), and the one thing needed here - a table of three keys
// that the file either has or does not - does not need a general editor.
// go-toml/v2 is used only to check the file before and the result after:
// an edit whose result does not decode to exactly the intended document is
// refused (see checked in edit.go).

// tomlLine is one line of the file and what it is.
type tomlLine struct {
	start, end int      // byte offsets, end excludes the newline
	header     []string // the table's key path when the line is [a.b] or [[a.b]]
	content    bool     // holds anything but blanks and comments
}

// tomlLines splits src into lines, tracking multi-line strings so a line
// inside one is never taken for a header.
func tomlLines(src []byte) []tomlLine {
	var out []tomlLine
	inML := "" // `"""` or `'''` while inside a multi-line string
	for off := 0; off <= len(src); {
		end := lineEnd(src, off)
		line := string(src[off:end])
		l := tomlLine{start: off, end: end}
		if inML == "" {
			t := strings.TrimSpace(line)
			l.content = t != "" && !strings.HasPrefix(t, "#")
			if strings.HasPrefix(t, "[") {
				l.header = tomlHeader(t)
			}
		} else {
			l.content = true
		}
		inML = scanTOMLStrings(line, inML)
		out = append(out, l)
		off = end + 1
		if end == len(src) {
			break
		}
	}
	return out
}

// scanTOMLStrings returns the multi-line string state at the end of line.
func scanTOMLStrings(line, inML string) string {
	for i := 0; i < len(line); {
		if inML != "" {
			j := strings.Index(line[i:], inML)
			if j < 0 {
				return inML
			}
			if inML == `"""` && j > 0 && escapedAt(line, i+j) {
				i += j + 1
				continue
			}
			i += j + 3
			inML = ""
			continue
		}
		switch {
		case strings.HasPrefix(line[i:], `"""`), strings.HasPrefix(line[i:], `'''`):
			inML = line[i : i+3]
			i += 3
		case line[i] == '"':
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case line[i] == '\'':
			i++
			for i < len(line) && line[i] != '\'' {
				i++
			}
			i++
		case line[i] == '#':
			return ""
		default:
			i++
		}
	}
	return inML
}

// escapedAt says whether the byte at i follows an odd run of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for i--; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// tomlHeader parses `[a . "b"]` or `[[a.b]]` (with an optional comment)
// into its keys, nil when it is not a header.
func tomlHeader(t string) []string {
	t = strings.TrimPrefix(t, "[")
	t = strings.TrimPrefix(t, "[")
	var keys []string
	var cur strings.Builder
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(t) && t[j] != c {
				if c == '"' && t[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(t) {
				return nil
			}
			cur.WriteString(t[i+1 : j])
			i = j
		case c == '.':
			keys = append(keys, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ']':
			return append(keys, strings.TrimSpace(cur.String()))
		default:
			cur.WriteByte(c)
		}
	}
	return nil
}

func hasPrefix(keys, prefix []string) bool {
	if len(keys) < len(prefix) {
		return false
	}
	for i := range prefix {
		if keys[i] != prefix[i] {
			return false
		}
	}
	return true
}

// tomlTable finds the lines of table path (with its sub-tables): the first
// byte of its header and the end of its last content line. ok is false
// when the file has no such header.
func tomlTable(src []byte, path []string) (from, to int, ok bool) {
	lines := tomlLines(src)
	for i, l := range lines {
		if l.header == nil || !equalKeys(l.header, path) {
			continue
		}
		to = l.end
		for _, m := range lines[i+1:] {
			if m.header != nil && !hasPrefix(m.header, path) {
				break
			}
			if m.content {
				to = m.end
			}
		}
		return l.start, to, true
	}
	return 0, 0, false
}

func equalKeys(a, b []string) bool { return len(a) == len(b) && hasPrefix(a, b) }

// renderTOMLTable writes [path] and its keys (strings and string lists).
func renderTOMLTable(path []string, body orderedObject) string {
	var b strings.Builder
	b.WriteString("[")
	for i, k := range path {
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(tomlKey(k))
	}
	b.WriteString("]\n")
	for _, e := range body {
		fmt.Fprintf(&b, "%s = %s\n", tomlKey(e.k), renderJSON(e.v, "", "", true))
	}
	return b.String()
}

// tomlKey writes a bare key when TOML allows one, else a quoted key.
func tomlKey(k string) string {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return quoteJSON(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// tomlSetTable makes the file hold table path with body: its lines are
// replaced when it exists, else it is appended after a blank line.
func tomlSetTable(src []byte, path []string, body orderedObject) []byte {
	block := renderTOMLTable(path, body)
	if from, to, ok := tomlTable(src, path); ok {
		return splice(src, from, to, strings.TrimSuffix(block, "\n"))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(block)
	}
	sep := ""
	if !bytes.HasSuffix(src, []byte("\n")) {
		sep = "\n"
	}
	if !bytes.HasSuffix(src, []byte("\n\n")) {
		sep += "\n"
	}
	return append(append(append([]byte(nil), src...), sep...), block...)
}

// tomlDeleteTable removes table path and its sub-tables, with the blank
// line that separated it when it ended the file.
func tomlDeleteTable(src []byte, path []string) ([]byte, bool) {
	from, to, ok := tomlTable(src, path)
	if !ok {
		return src, false
	}
	if to < len(src) && src[to] == '\n' {
		to++
	}
	if to == len(src) {
		// The end of the file: take the blank line before it too.
		if from >= 2 && src[from-1] == '\n' && src[from-2] == '\n' {
			from--
		}
	}
	return splice(src, from, to, ""), true
}

// tomlValue decodes a TOML document into plain Go values.
func tomlValue(src []byte) (any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(src, &m); err != nil {
		return nil, err
	}
	return m, nil
}
