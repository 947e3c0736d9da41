package integrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// The JSON editor changes a JSON or JSON-with-comments file by splicing
// text into the bytes the user wrote, never by re-serialising the
// document: hujson parses the file into a syntax tree that records every
// value's byte offsets, the edit inserts or removes exactly one member (or
// array element) at those offsets, and everything else - comments,
// indentation, key order, trailing commas, odd spacing - stays byte for
// byte. Every edit is then checked by parsing the result and comparing it
// with the intended document (see checked in edit.go).

// jsonDoc is a parsed JSON/JSONC file.
type jsonDoc struct {
	src  []byte
	root hujson.Value
}

func parseJSON(src []byte) (*jsonDoc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, err
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("the top level is not an object")
	}
	return &jsonDoc{src: src, root: root}, nil
}

// jsonValue decodes a JSON/JSONC document into plain Go values.
func jsonValue(src []byte) (any, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return map[string]any{}, nil
	}
	std, err := hujson.Standardize(append([]byte(nil), src...))
	if err != nil {
		return nil, err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// member finds the last member called name in obj (JSON's last one wins).
func member(obj *hujson.Object, name string) (int, bool) {
	found := -1
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			found = i
		}
	}
	return found, found >= 0
}

// lookup walks keys from the root. It returns the deepest object reached,
// the keys still missing below it, and the value at the full path when
// every key exists.
func (d *jsonDoc) lookup(keys []string) (obj *hujson.Value, missing []string, err error) {
	cur := &d.root
	for i, k := range keys {
		o := cur.Value.(*hujson.Object)
		j, ok := member(o, k)
		if !ok {
			return cur, keys[i:], nil
		}
		next := &o.Members[j].Value
		if _, isObj := next.Value.(*hujson.Object); !isObj {
			return nil, nil, fmt.Errorf("%q is not an object", strings.Join(keys[:i+1], "."))
		}
		cur = next
	}
	return cur, nil, nil
}

// setMember makes keys.name hold value (creating the objects on the way),
// replacing only that value when it exists.
func (d *jsonDoc) setMember(keys []string, name string, value any) ([]byte, error) {
	obj, missing, err := d.lookup(keys)
	if err != nil {
		return nil, err
	}
	o := obj.Value.(*hujson.Object)
	if len(missing) == 0 {
		if j, ok := member(o, name); ok {
			v := o.Members[j].Value
			ind := lineIndent(d.src, o.Members[j].Name.StartOffset)
			return splice(d.src, v.StartOffset, v.EndOffset, renderJSON(value, ind, indentUnit(d.src), isInline(d.src, obj))), nil
		}
	}
	// Nest the value in the objects that are missing.
	key, val := name, value
	if len(missing) > 0 {
		key = missing[0]
		val = nestJSON(append(missing[1:], name), value)
	}
	return d.insert(obj, key, val), nil
}

// nestJSON wraps value in one single-member object per key.
func nestJSON(keys []string, value any) any {
	for i := len(keys) - 1; i >= 0; i-- {
		value = orderedObject{{keys[i], value}}
	}
	return value
}

// span is one member or element of a container, from its first byte
// (the member's name) to the end of its value.
type span struct{ start, end int }

func items(v *hujson.Value) []span {
	var out []span
	switch c := v.Value.(type) {
	case *hujson.Object:
		for _, m := range c.Members {
			out = append(out, span{m.Name.StartOffset, m.Value.EndOffset})
		}
	case *hujson.Array:
		for _, e := range c.Elements {
			out = append(out, span{e.StartOffset, e.EndOffset})
		}
	}
	return out
}

// insert adds `"key": val` as the last member of obj.
func (d *jsonDoc) insert(obj *hujson.Value, key string, val any) []byte {
	return d.insertItem(obj, func(ind string, inline bool) string {
		return quoteJSON(key) + ": " + renderJSON(val, ind, indentUnit(d.src), inline)
	})
}

// insertItem adds one member or element, rendered by item for its
// indentation, after the container's last one.
func (d *jsonDoc) insertItem(c *hujson.Value, item func(ind string, inline bool) string) []byte {
	its := items(c)
	closing := c.EndOffset - 1 // the '}' or ']'
	inline := isInline(d.src, c)
	var ind string
	if len(its) > 0 {
		ind = lineIndent(d.src, its[0].start)
	} else {
		ind = lineIndent(d.src, c.StartOffset) + indentUnit(d.src)
	}
	text := item(ind, inline)
	if len(its) == 0 {
		if inline {
			return splice(d.src, closing, closing, text)
		}
		// The item gets its own line and the bracket stays where it was.
		between := string(d.src[c.StartOffset+1 : closing])
		if i := strings.LastIndexByte(between, '\n'); i >= 0 {
			at := c.StartOffset + 1 + i
			return splice(d.src, at, at, "\n"+ind+text)
		}
		return splice(d.src, closing, closing, "\n"+ind+text+"\n"+lineIndent(d.src, c.StartOffset))
	}
	last := its[len(its)-1]
	_, trailing := commaAfter(d.src, last.end, closing)
	if inline {
		if trailing {
			return splice(d.src, closing, closing, " "+text+",")
		}
		return splice(d.src, last.end, last.end, ", "+text)
	}
	// Multi-line: the new item goes on its own line before the closing
	// bracket's line; a comment after the last item stays on its line.
	tail := string(d.src[last.end:closing])
	nl := strings.LastIndexByte(tail, '\n')
	if nl < 0 {
		// `"a": 1 }` with the bracket on the last item's line.
		if trailing {
			return splice(d.src, closing, closing, "\n"+ind+text+",\n"+lineIndent(d.src, c.StartOffset))
		}
		return splice(d.src, last.end, last.end, ",\n"+ind+text)
	}
	at := last.end + nl
	if trailing {
		return splice(d.src, at, at, "\n"+ind+text+",")
	}
	out := splice(d.src, at, at, "\n"+ind+text)
	return splice(out, last.end, last.end, ",")
}

// deleteMember removes keys.name, leaving the rest as it was.
func (d *jsonDoc) deleteMember(keys []string, name string) ([]byte, bool) {
	obj, missing, err := d.lookup(keys)
	if err != nil || len(missing) > 0 {
		return d.src, false
	}
	j, ok := member(obj.Value.(*hujson.Object), name)
	if !ok {
		return d.src, false
	}
	return d.deleteItem(obj, j), true
}

// deleteItem removes the j-th member or element of c, with its line when
// it had one to itself, and the comma that joined it to the others.
func (d *jsonDoc) deleteItem(c *hujson.Value, j int) []byte {
	its := items(c)
	closing := c.EndOffset - 1
	it := its[j]
	isLast := j == len(its)-1
	start := it.start
	if ls := lineStart(d.src, start); strings.TrimSpace(string(d.src[ls:start])) == "" {
		start = ls
		if start > 0 && d.src[start-1] == '\n' && isLast {
			start-- // the newline before it, so the closing line stays
		}
	}
	end := it.end
	comma, trailing := commaAfter(d.src, end, closing)
	if trailing {
		end = comma + 1
		if !isLast {
			// Up to the end of the line when only blanks follow.
			if le := lineEnd(d.src, end); strings.TrimSpace(string(d.src[end:le])) == "" {
				end = le
				if end < len(d.src) && start == lineStart(d.src, start) {
					end++
				}
			}
		}
	}
	out := splice(d.src, start, end, "")
	if j > 0 && isLast && !trailing {
		// The comma after the one before it now ends the container.
		if pc, ok := commaAfter(d.src, its[j-1].end, it.start); ok {
			out = splice(out, pc, pc+1, "")
		}
	}
	return out
}

// commaAfter reports the offset of a comma between from and to, skipping
// whitespace and comments.
func commaAfter(src []byte, from, to int) (int, bool) {
	i := from
	for i < to {
		switch {
		case src[i] == ',':
			return i, true
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case bytes.HasPrefix(src[i:], []byte("//")):
			for i < to && src[i] != '\n' {
				i++
			}
		case bytes.HasPrefix(src[i:], []byte("/*")):
			e := bytes.Index(src[i+2:], []byte("*/"))
			if e < 0 {
				return 0, false
			}
			i += e + 4
		default:
			return 0, false
		}
	}
	return 0, false
}

// isInline says whether an object is written on one line.
func isInline(src []byte, v *hujson.Value) bool {
	return !bytes.ContainsRune(src[v.StartOffset:v.EndOffset], '\n') && v.EndOffset-v.StartOffset > 2
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

func lineStart(src []byte, at int) int {
	return bytes.LastIndexByte(src[:at], '\n') + 1
}

func lineEnd(src []byte, at int) int {
	if i := bytes.IndexByte(src[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(src)
}

// lineIndent is the leading whitespace of the line holding at.
func lineIndent(src []byte, at int) string {
	ls := lineStart(src, at)
	e := ls
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[ls:e])
}

// indentUnit is the file's indentation step: the leading whitespace of its
// first indented line, two spaces if none.
func indentUnit(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// orderedObject is a JSON object whose members keep their order.
type orderedObject []kv

type kv struct {
	k string
	v any
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderJSON writes v with the given indentation: ind is the indentation
// of the line the value starts on, unit one more level.
func renderJSON(v any, ind, unit string, inline bool) string {
	var b strings.Builder
	var walk func(v any, ind string)
	walk = func(v any, ind string) {
		switch x := v.(type) {
		case orderedObject:
			if len(x) == 0 {
				b.WriteString("{}")
				return
			}
			b.WriteString("{")
			for i, m := range x {
				if i > 0 {
					b.WriteString(",")
				}
				if inline {
					b.WriteString(" ")
				} else {
					b.WriteString("\n" + ind + unit)
				}
				b.WriteString(quoteJSON(m.k) + ": ")
				walk(m.v, ind+unit)
			}
			if inline {
				b.WriteString(" }")
			} else {
				b.WriteString("\n" + ind + "}")
			}
		case []any:
			b.WriteString("[")
			for i, e := range x {
				if i > 0 {
					b.WriteString(",")
				}
				if !inline {
					b.WriteString("\n" + ind + unit)
				}
				walk(e, ind+unit)
			}
			if !inline && len(x) > 0 {
				b.WriteString("\n" + ind)
			}
			b.WriteString("]")
		case []string:
			b.WriteString("[")
			for i, s := range x {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(quoteJSON(s))
			}
			b.WriteString("]")
		case string:
			b.WriteString(quoteJSON(x))
		default:
			j, _ := json.Marshal(x)
			b.Write(j)
		}
	}
	walk(v, ind)
	return b.String()
}

// plain turns an orderedObject tree into the values a decoder produces, so
// the intended document can be compared with a parsed one.
func plain(v any) any {
	switch x := v.(type) {
	case orderedObject:
		m := make(map[string]any, len(x))
		for _, e := range x {
			m[e.k] = plain(e.v)
		}
		return m
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return a
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = plain(e)
		}
		return a
	case int:
		return json.Number(fmt.Sprint(x))
	}
	return v
}

// arrayAt returns the array at keys, nil when a key is missing.
func (d *jsonDoc) arrayAt(keys []string) (*hujson.Value, error) {
	obj, missing, err := d.lookup(keys[:len(keys)-1])
	if err != nil || len(missing) > 0 {
		return nil, err
	}
	o := obj.Value.(*hujson.Object)
	j, ok := member(o, keys[len(keys)-1])
	if !ok {
		return nil, nil
	}
	v := &o.Members[j].Value
	if _, isArr := v.Value.(*hujson.Array); !isArr {
		return nil, fmt.Errorf("%q is not a list", strings.Join(keys, "."))
	}
	return v, nil
}

// setElement replaces element j of arr (or appends when j < 0) with value.
func (d *jsonDoc) setElement(arr *hujson.Value, j int, value any) []byte {
	unit := indentUnit(d.src)
	if j >= 0 {
		e := items(arr)[j]
		return splice(d.src, e.start, e.end, renderJSON(value, lineIndent(d.src, e.start), unit, isInline(d.src, arr)))
	}
	return d.insertItem(arr, func(ind string, inline bool) string { return renderJSON(value, ind, unit, inline) })
}
