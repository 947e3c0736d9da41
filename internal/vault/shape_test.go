package vault

import (
	"reflect"
	"testing"

	"github.com/compartment/compartment/internal/shape"
)

// TestRecordShape: shape.Record, which the panel decodes `recent --json`
// into, has exactly the JSON fields of Record (name, tag and type), so a
// field added to Record cannot be missing from what the panel reads.
func TestRecordShape(t *testing.T) {
	fields := func(ty reflect.Type) map[string]string {
		m := map[string]string{}
		for i := range ty.NumField() {
			f := ty.Field(i)
			if tag := f.Tag.Get("json"); tag != "-" {
				m[f.Name] = tag + " " + f.Type.String()
			}
		}
		return m
	}
	rec, sh := fields(reflect.TypeFor[Record]()), fields(reflect.TypeFor[shape.Record]())
	if len(rec) < 15 {
		t.Fatalf("Record has %d JSON fields: %v", len(rec), rec)
	}
	if !reflect.DeepEqual(rec, sh) {
		for k, v := range rec {
			if sh[k] != v {
				t.Errorf("Record.%s is %q, shape.Record.%s is %q", k, v, k, sh[k])
			}
		}
		for k, v := range sh {
			if _, ok := rec[k]; !ok {
				t.Errorf("shape.Record.%s (%q) is not in Record", k, v)
			}
		}
	}
}
