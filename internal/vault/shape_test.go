package vault_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/shape"
	"github.com/compartment/compartment/internal/vault"
)

// The panel decodes records as shape.Record so that it never links the
// vault; the two must therefore carry the same JSON. A field added to one
// and not the other fails here rather than silently vanishing in the panel.
func TestShapeRecordMatchesVaultRecord(t *testing.T) {
	want := jsonFields(reflect.TypeOf(vault.Record{}))
	got := jsonFields(reflect.TypeOf(shape.Record{}))
	for name, typ := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("shape.Record lacks the JSON field %q (%s) that vault.Record has", name, typ)
		} else if g != typ {
			t.Errorf("JSON field %q: shape.Record has %s, vault.Record %s", name, g, typ)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("shape.Record has the JSON field %q that vault.Record does not", name)
		}
	}

	// And a fully populated record survives the trip through the panel's type.
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	r := vault.Record{
		ID: "r1", Text: "Lena prefers Zed", Source: "chat", Discovered: "2026-03-04",
		Created: created, Namespace: "main", Tags: []string{"editor"}, TagsOrigin: []string{"editor"},
		Importance: 0.7, Kind: "opinion", Expires: "2027-01-01", Supersedes: []string{"r0"},
		SupersededBy: "r2", SplitInto: []string{"r3"}, Quarantined: true, Caller: "claude",
		Affirmed: created.Add(time.Hour), Reference: true, Seq: 42,
	}
	a, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var s shape.Record
	if err := json.Unmarshal(a, &s); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("a record changed on its way through shape.Record:\n vault %s\n shape %s", a, b)
	}
}

// jsonFields maps each JSON field name of t to its Go type and tag options.
func jsonFields(t reflect.Type) map[string]string {
	m := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts := tag, ""
		for j := 0; j < len(tag); j++ {
			if tag[j] == ',' {
				name, opts = tag[:j], tag[j:]
				break
			}
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type.String() + opts
	}
	return m
}
