package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// decodeStrictEntry reads one pack entry (FORMAT.md §8.4) so that what a
// reviewer reads with jq is what is installed: one JSON object of valid
// UTF-8, keys matched exactly (encoding/json alone folds case, so "Text"
// would fill text), each key at most once, no key it does not know, no
// null, and nothing after the object. The shape checks of
// DecodePackEntry come after.
func decodeStrictEntry(b []byte) (PackMemory, error) {
	var m PackMemory
	if !utf8.Valid(b) {
		return m, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return m, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return m, err
		}
		key, _ := tok.(string) // a key is always a string here
		if seen[key] {
			return m, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return m, fmt.Errorf("key %q: %v", key, err)
		}
		if string(raw) == "null" {
			return m, fmt.Errorf("key %q is null; leave it out instead", key)
		}
		var target any
		switch key {
		case "text":
			target = &m.Text
		case "source":
			target = &m.Source
		case "discovered":
			target = &m.Discovered
		case "tags":
			target = &m.Tags
		case "kind":
			target = &m.Kind
		case "importance":
			m.Importance = new(float64)
			target = m.Importance
		default:
			return m, fmt.Errorf("unknown key %q (the keys are text, source, discovered, tags, kind, importance, in lower case)", key)
		}
		if err := json.Unmarshal(raw, target); err != nil {
			return m, fmt.Errorf("key %q: %v", key, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return m, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return m, errors.New("more than one JSON value")
	}
	return m, nil
}
