package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// Format is a configuration file's syntax.
type Format int

const (
	JSON  Format = iota // strict JSON
	JSONC               // JSON with comments and trailing commas
	TOML
	YAML
)

func (f Format) String() string {
	return [...]string{"JSON", "JSON with comments", "TOML", "YAML"}[f]
}

// Location says where our entry lives in a file: under the nested keys
// Keys, a member called Name (or, with Seq, a list item whose name field
// is Name; YAML only).
type Location struct {
	Keys []string
	Name string
	Seq  bool
}

// ErrUnparsable marks a file the editor will not touch: it does not parse,
// or its shape is one the editor cannot change without rewriting it.
var ErrUnparsable = errors.New("integrate: the file cannot be edited safely")

// Merge returns src with the entry set to body at loc, every other byte
// kept. It never returns a result that decodes to anything but src's
// document with that one entry set.
func Merge(f Format, src []byte, loc Location, body orderedObject) ([]byte, error) {
	if crlf(src) {
		// Edit with LF line ends and give the file its CRLFs back, so the
		// lines we add end as the user's do.
		out, err := Merge(f, bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), loc, body)
		if err != nil {
			return nil, err
		}
		return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), nil
	}
	before, err := decode(f, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
	}
	if cur, _ := Lookup(f, src, loc); cur != nil && reflect.DeepEqual(cur, normalizedEntry(loc, body)) {
		// Already there (perhaps reformatted by the client): nothing to do.
		return src, nil
	}
	var out []byte
	switch f {
	case JSON, JSONC:
		d, err := parseJSON(src)
		if err == nil {
			out, err = d.setMember(loc.Keys, loc.Name, body)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
		}
	case TOML:
		out = tomlSetTable(src, append(append([]string(nil), loc.Keys...), loc.Name), body)
	case YAML:
		if len(loc.Keys) != 1 {
			return nil, fmt.Errorf("integrate: YAML entries live under one top-level key")
		}
		out, err = yamlSet(src, yamlEntry{key: loc.Keys[0], name: loc.Name, seq: loc.Seq}, body)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
		}
	}
	want := withEntry(normalize(before), loc, normalize(plain(body)))
	if err := check(f, out, want, false); err != nil {
		return nil, err
	}
	return out, nil
}

// crlf says whether every line of src ends in CRLF.
func crlf(src []byte) bool {
	n := bytes.Count(src, []byte("\n"))
	return n > 0 && bytes.Count(src, []byte("\r\n")) == n
}

// normalizedEntry is body as Lookup returns it.
func normalizedEntry(loc Location, body orderedObject) any {
	v := normalize(plain(body))
	if loc.Seq {
		v = withName(v, loc.Name)
	}
	return v
}

// Remove returns src without the entry at loc (found false when it has
// none), every other byte kept.
func Remove(f Format, src []byte, loc Location) (out []byte, found bool, err error) {
	if crlf(src) {
		out, found, err := Remove(f, bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), loc)
		if err != nil || !found {
			return src, found, err
		}
		return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), true, nil
	}
	before, err := decode(f, src)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrUnparsable, err)
	}
	switch f {
	case JSON, JSONC:
		d, err := parseJSON(src)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrUnparsable, err)
		}
		out, found = d.deleteMember(loc.Keys, loc.Name)
	case TOML:
		out, found = tomlDeleteTable(src, append(append([]string(nil), loc.Keys...), loc.Name))
	case YAML:
		out, found = yamlDelete(src, yamlEntry{key: loc.Keys[0], name: loc.Name, seq: loc.Seq})
	}
	if !found {
		return src, false, nil
	}
	want := withEntry(normalize(before), loc, nil)
	if err := check(f, out, want, true); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// Lookup returns the entry at loc in plain values, nil when there is none.
func Lookup(f Format, src []byte, loc Location) (any, error) {
	v, err := decode(f, src)
	if err != nil {
		return nil, err
	}
	cur := normalize(v)
	for _, k := range loc.Keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		cur = m[k]
	}
	if loc.Seq {
		list, _ := cur.([]any)
		for _, it := range list {
			if m, ok := it.(map[string]any); ok && m["name"] == loc.Name {
				return m, nil
			}
		}
		return nil, nil
	}
	m, _ := cur.(map[string]any)
	return m[loc.Name], nil
}

// check decodes out and compares it with want. Removal compares with empty
// containers pruned, since a key whose last entry went may stay or go.
func check(f Format, out []byte, want any, pruned bool) error {
	got, err := decode(f, out)
	if err != nil {
		return fmt.Errorf("%w: the edited text would not parse (%v); nothing was written", ErrUnparsable, err)
	}
	g := normalize(got)
	if pruned {
		g, want = prune(g), prune(want)
	}
	if !reflect.DeepEqual(g, want) {
		return fmt.Errorf("%w: the edit would change more than our entry; nothing was written", ErrUnparsable)
	}
	return nil
}

func decode(f Format, src []byte) (any, error) {
	switch f {
	case TOML:
		return tomlValue(src)
	case YAML:
		return yamlValue(src)
	}
	v, err := jsonValue(src)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the top level is not an object")
	}
	return v, nil
}

// withEntry returns a copy of doc with the entry at loc set to val (or
// removed when val is nil).
func withEntry(doc any, loc Location, val any) any {
	root, _ := deepCopy(doc).(map[string]any)
	if root == nil {
		root = map[string]any{}
	}
	keys, last := loc.Keys, loc.Name
	if loc.Seq {
		keys, last = loc.Keys[:len(loc.Keys)-1], loc.Keys[len(loc.Keys)-1]
	}
	cur := root
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			if val == nil {
				return root
			}
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	if !loc.Seq {
		if val == nil {
			delete(cur, last)
		} else {
			cur[last] = val
		}
		return root
	}
	list, _ := cur[last].([]any)
	var out []any
	replaced := false
	for _, it := range list {
		if m, ok := it.(map[string]any); ok && m["name"] == loc.Name {
			if val != nil && !replaced {
				out = append(out, withName(val, loc.Name))
				replaced = true
			}
			continue
		}
		out = append(out, it)
	}
	if val != nil && !replaced {
		out = append(out, withName(val, loc.Name))
	}
	if len(out) == 0 {
		delete(cur, last)
	} else {
		cur[last] = out
	}
	return root
}

func withName(val any, name string) any {
	m := deepCopy(val).(map[string]any)
	m["name"] = name
	return m
}

// normalize maps decoded documents from any of the formats onto one shape:
// maps with string keys, []any lists, numbers as float64.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalize(e)
		}
		return m
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normalize(e)
		}
		return a
	case []map[string]any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normalize(e)
		}
		return a
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return string(x)
		}
		return f
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}

func deepCopy(v any) any { return normalize(v) }

// prune drops empty maps and lists (recursively) and nulls.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			p := prune(e)
			if isEmpty(p) {
				continue
			}
			m[k] = p
		}
		return m
	case []any:
		var a []any
		for _, e := range x {
			a = append(a, prune(e))
		}
		return a
	}
	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}
