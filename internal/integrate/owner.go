package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// UserEntryError is the refusal to replace a `compartment` entry the user
// wrote themselves (their own binary, vault or environment): Diff says,
// one field a line, how theirs differs from ours.
type UserEntryError struct {
	Path string
	Diff []string
}

func (e *UserEntryError) Error() string {
	return fmt.Sprintf("%s already has a %q entry of your own, so it was left as it was (%s); "+
		"run the command again with --force to replace it (uninstall puts yours back)", e.Path, Name, strings.Join(e.Diff, "; "))
}

// ErrUserEntry matches a *UserEntryError with errors.Is.
var ErrUserEntry = errors.New("integrate: the entry is the user's own")

func (e *UserEntryError) Is(target error) bool { return target == ErrUserEntry }

// entryJSON is an entry as the state file records it.
func entryJSON(v any) json.RawMessage {
	b, err := json.Marshal(normalize(v))
	if err != nil {
		return nil
	}
	return b
}

// ours says whether cur, the entry a file holds, is one compartment wrote:
// the state records writing exactly that entry, or (state files from
// before entries were recorded) records writing the file at all.
func ours(it *Item, cur any) bool {
	if it == nil {
		return false
	}
	if len(it.Entry) == 0 {
		return true
	}
	var rec any
	if err := json.Unmarshal(it.Entry, &rec); err != nil {
		return false
	}
	return reflect.DeepEqual(normalize(rec), normalize(cur))
}

// entryDiff lists the fields where the user's entry and ours differ.
func entryDiff(theirs, mine any) []string {
	tm, _ := normalize(theirs).(map[string]any)
	mm, _ := normalize(mine).(map[string]any)
	keys := map[string]bool{}
	for k := range tm {
		keys[k] = true
	}
	for k := range mm {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		t, inT := tm[k]
		m, inM := mm[k]
		switch {
		case !inM:
			out = append(out, fmt.Sprintf("yours has %s %s, ours has none", k, compact(t)))
		case !inT:
			out = append(out, fmt.Sprintf("ours has %s %s, yours has none", k, compact(m)))
		case !reflect.DeepEqual(t, m):
			out = append(out, fmt.Sprintf("%s: yours %s, ours %s", k, compact(t), compact(m)))
		}
	}
	if len(out) == 0 {
		out = append(out, "it is written differently")
	}
	return out
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// orderedFromJSON decodes raw keeping the order of object members, so an
// entry put back reads as the user wrote it.
func orderedFromJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("integrate: a recorded entry does not decode: %w", err)
	}
	return v, nil
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			obj := orderedObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, kv{k, v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return tok, nil
}
