package integrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// The YAML editor adds, replaces or removes one entry - a key under a
// top-level mapping (Hermes Agent's mcp_servers, Goose's extensions) or an
// item of a top-level list whose name is ours (Continue's mcpServers) - by
// splicing lines into the text. yaml.v3's node API supplies the positions
// (the line and column of every key); re-encoding the node tree would keep
// comments but re-indent and re-quote the whole file, so it is never used
// to write. Flow-style collections ({a: 1} on one line) are refused: the
// block to paste is printed instead.

type yamlDoc struct {
	src   []byte
	lines []int // offset of each line's first byte; lines[i] is line i+1
	root  *yaml.Node
}

func parseYAML(src []byte) (*yamlDoc, error) {
	if bytes.ContainsRune(bytes.ReplaceAll(src, []byte("\r\n"), nil), '\r') {
		// YAML counts a lone CR as a line break; the line table would not.
		return nil, fmt.Errorf("the file has carriage returns without line feeds")
	}
	d := &yamlDoc{src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("the file holds more than one YAML document")
	}
	if len(n.Content) == 1 {
		d.root = n.Content[0]
		if d.root.Kind == yaml.ScalarNode && d.root.Tag == "!!null" {
			d.root = nil
		} else if d.root.Kind != yaml.MappingNode || d.root.Style&yaml.FlowStyle != 0 {
			return nil, fmt.Errorf("the top level is not a block mapping")
		}
	}
	return d, nil
}

// yamlValue decodes a YAML document into plain Go values.
func yamlValue(src []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]any{}, nil
	}
	return v, nil
}

// off is the byte offset of the start of 1-based line n.
func (d *yamlDoc) off(n int) int {
	if n-1 < len(d.lines) {
		return d.lines[n-1]
	}
	return len(d.src)
}

// lastContent is the end offset (before the newline) of the last line in
// [from, to) (1-based lines) holding anything but blanks and comments.
func (d *yamlDoc) lastContent(from, to int) int {
	end := lineEnd(d.src, d.off(from))
	for n := from; n < to && n <= len(d.lines); n++ {
		s := d.off(n)
		e := lineEnd(d.src, s)
		if t := strings.TrimSpace(string(d.src[s:e])); t != "" && !strings.HasPrefix(t, "#") {
			end = e
		}
	}
	return end
}

// pairs returns a mapping's keys and values.
func pairs(m *yaml.Node) (keys, vals []*yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i])
		vals = append(vals, m.Content[i+1])
	}
	return keys, vals
}

// yamlEntry says what the editor writes: under top-level key, either a
// mapping entry called name or (seq) a list item whose name field is name.
type yamlEntry struct {
	key, name string
	seq       bool
}

// extent finds the entry: the byte range of its lines, or ok false. parent
// is the top-level value (nil when the key is absent); end is 1 past the
// last line the top-level key's value may use.
func (d *yamlDoc) extent(e yamlEntry) (parent *yaml.Node, parentKey *yaml.Node, limit int, from, to int, ok bool, err error) {
	if d.root == nil {
		return nil, nil, 0, 0, 0, false, nil
	}
	keys, vals := pairs(d.root)
	for i, k := range keys {
		if k.Value != e.key {
			continue
		}
		limit = len(d.lines) + 1
		if i+1 < len(keys) {
			limit = keys[i+1].Line
		}
		parent, parentKey = vals[i], k
		switch {
		case parent.Kind == yaml.ScalarNode && parent.Tag == "!!null" && parent.Value == "":
			return nil, parentKey, limit, 0, 0, false, nil
		case parent.Style&yaml.FlowStyle != 0:
			return nil, nil, 0, 0, 0, false, fmt.Errorf("%s is written in flow style ({...} or [...])", e.key)
		case e.seq && parent.Kind != yaml.SequenceNode, !e.seq && parent.Kind != yaml.MappingNode:
			return nil, nil, 0, 0, 0, false, fmt.Errorf("%s is not a %s", e.key, map[bool]string{true: "list", false: "mapping"}[e.seq])
		}
		var starts []int // first line of each child
		found := -1
		if e.seq {
			for j, it := range parent.Content {
				starts = append(starts, it.Line)
				if it.Kind == yaml.MappingNode {
					ik, iv := pairs(it)
					for x := range ik {
						if ik[x].Value == "name" && iv[x].Value == e.name {
							found = j
						}
					}
				}
			}
		} else {
			ck, _ := pairs(parent)
			for j, k := range ck {
				starts = append(starts, k.Line)
				if k.Value == e.name {
					found = j
				}
			}
		}
		if found < 0 {
			return parent, parentKey, limit, 0, 0, false, nil
		}
		next := limit
		if found+1 < len(starts) {
			next = starts[found+1]
		}
		first := d.off(starts[found])
		return parent, parentKey, limit, first, d.lastContent(starts[found], next), true, nil
	}
	return nil, nil, 0, 0, 0, false, nil
}

// renderYAML writes the entry's lines at indentation ind (the entry's own
// key, or the list item's dash).
func renderYAML(e yamlEntry, body orderedObject, ind, unit string) string {
	var b strings.Builder
	var walk func(o orderedObject, ind string, first string)
	walk = func(o orderedObject, ind, first string) {
		for i, m := range o {
			lead := ind
			if i == 0 && first != "" {
				lead = first
			}
			if sub, ok := m.v.(orderedObject); ok && len(sub) > 0 {
				fmt.Fprintf(&b, "%s%s:\n", lead, yamlKey(m.k))
				walk(sub, ind+unit, "")
				continue
			}
			fmt.Fprintf(&b, "%s%s: %s\n", lead, yamlKey(m.k), renderJSON(m.v, "", "", true))
		}
	}
	if e.seq {
		item := append(orderedObject{{"name", e.name}}, body...)
		walk(item, ind+"  ", ind+"- ")
	} else {
		fmt.Fprintf(&b, "%s%s:\n", ind, yamlKey(e.name))
		walk(body, ind+unit, "")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// yamlKey writes a plain key when it cannot be misread, else quotes it.
func yamlKey(k string) string {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return quoteJSON(k)
		}
	}
	if k == "" || k == "null" || k == "true" || k == "false" || k == "y" || k == "n" || k == "yes" || k == "no" || k == "on" || k == "off" {
		return quoteJSON(k)
	}
	return k
}

// yamlSet makes the file hold the entry with body.
func yamlSet(src []byte, e yamlEntry, body orderedObject) ([]byte, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	if at, ok := d.emptyFlow(e.key); ok {
		// `key: {}` or `key: []`: drop the brackets, then add the entry
		// under the key as a block.
		return yamlSet(splice(src, at, at+2, ""), e, body)
	}
	parent, parentKey, limit, from, to, found, err := d.extent(e)
	if err != nil {
		return nil, err
	}
	unit := "  "
	if parent != nil && !e.seq && parent.Content[0].Column > parentKey.Column {
		unit = strings.Repeat(" ", parent.Content[0].Column-parentKey.Column)
	}
	switch {
	case found:
		ind := lineIndent(src, from)
		return splice(src, from, to, renderYAML(e, body, ind, unit)), nil
	case parent != nil:
		// Append after the last child, at the children's indentation.
		first := parent.Content[0]
		ind := strings.Repeat(" ", first.Column-1)
		if e.seq {
			ind = lineIndent(src, d.off(first.Line))
		}
		at := d.lastContent(parentKey.Line, limit)
		return splice(src, at, at, "\n"+renderYAML(e, body, ind, unit)), nil
	case parentKey != nil:
		// `key:` with nothing under it yet.
		ind := strings.Repeat(" ", parentKey.Column-1) + "  "
		at := lineEnd(src, d.off(parentKey.Line))
		return splice(src, at, at, "\n"+renderYAML(e, body, ind, unit)), nil
	}
	ind := ""
	if d.root != nil && len(d.root.Content) > 0 {
		ind = strings.Repeat(" ", d.root.Content[0].Column-1)
	}
	block := ind + yamlKey(e.key) + ":\n" + renderYAML(e, body, ind+"  ", unit) + "\n"
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(block), nil
	}
	sep := ""
	if !bytes.HasSuffix(src, []byte("\n")) {
		sep = "\n"
	}
	return append(append(append([]byte(nil), src...), sep...), block...), nil
}

// emptyFlow finds `{}` or `[]` written as the value of top-level key on
// the key's own line, and returns its byte offset.
func (d *yamlDoc) emptyFlow(key string) (int, bool) {
	if d.root == nil {
		return 0, false
	}
	keys, vals := pairs(d.root)
	for i, k := range keys {
		v := vals[i]
		if k.Value != key || v.Style&yaml.FlowStyle == 0 || len(v.Content) > 0 || v.Line != k.Line {
			continue
		}
		line := string(d.src[d.off(v.Line):lineEnd(d.src, d.off(v.Line))])
		col := 0
		for bi := range line {
			if col == v.Column-1 {
				if at := d.off(v.Line) + bi; at+2 <= len(d.src) {
					if s := string(d.src[at : at+2]); s == "{}" || s == "[]" {
						return at, true
					}
				}
				return 0, false
			}
			col++
		}
	}
	return 0, false
}

// yamlDelete removes the entry, and the top-level key when the entry was
// all it held.
func yamlDelete(src []byte, e yamlEntry) ([]byte, bool) {
	d, err := parseYAML(src)
	if err != nil {
		return src, false
	}
	parent, parentKey, limit, from, to, found, err := d.extent(e)
	if err != nil || !found {
		return src, false
	}
	if len(parent.Content) == map[bool]int{true: 1, false: 2}[e.seq] {
		// The only entry: the key goes too.
		from = d.off(parentKey.Line)
		to = d.lastContent(parentKey.Line, limit)
	}
	if to < len(src) && src[to] == '\n' {
		to++
	}
	return splice(src, from, to, ""), true
}
