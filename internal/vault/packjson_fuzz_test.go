package vault

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodePackEntry: whatever the bytes, an entry the strict decoder
// accepts reads the same to a generic JSON reader (what jq shows a
// reviewer): the same keys, the same values.
func FuzzDecodePackEntry(f *testing.F) {
	for _, s := range []string{
		`{"text":"x","source":"y","tags":["a"],"kind":"opinion","importance":0.25,"discovered":"2026-11-02"}`,
		`{"text":"x","Text":"y","source":"z"}`,
		`{"text":"x","text":"y","source":"z"}`,
		`{"t\u0065xt":"x","source":"y"}`,
		`{"text":"x\ud800","source":"y"}`,
		`{"text":"x","source":"y","importance":1e400}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodePackEntry(b)
		if err != nil {
			return
		}
		var generic map[string]any
		if err := json.Unmarshal(b, &generic); err != nil {
			t.Fatalf("accepted %q, which a generic reader refuses: %v", b, err)
		}
		want := map[string]any{"text": m.Text, "source": m.Source}
		if m.Discovered != "" || generic["discovered"] != nil {
			want["discovered"] = m.Discovered
		}
		if m.Kind != "" || generic["kind"] != nil {
			want["kind"] = m.Kind
		}
		if m.Tags != nil {
			tags := make([]any, len(m.Tags))
			for i, tg := range m.Tags {
				tags[i] = tg
			}
			want["tags"] = tags
		}
		if m.Importance != nil {
			want["importance"] = *m.Importance
		}
		if !reflect.DeepEqual(generic, want) {
			t.Fatalf("%q: installed %+v, a generic reader sees %v", b, want, generic)
		}
	})
}
