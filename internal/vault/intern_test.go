package vault

import (
	"testing"
	"time"
	"unsafe"
)

// TestReplayInternTable: records decoded through a replay's intern table
// equal those decoded without one, and share one copy of each repeated
// value with each other and with records decoded later (unique.Make).
func TestReplayInternTable(t *testing.T) {
	r := &Record{ID: "00112233445566778899aabbccddeeff", Text: "The port is 5433", Source: "chat", Discovered: "2026-08-01",
		Created: time.UnixMilli(1_780_000_000_000).UTC(), Namespace: "work", Tags: []string{"db", "ops"}, Importance: 0.5,
		Kind: KindFact, Caller: "agent-a", Seq: 7}
	body := encodeRecord(r)
	tab := internTable{}
	a, err := decodeRecordIn(r.ID, body, tab)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeRecordIn(r.ID, body, tab)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := decodeRecord(r.ID, body)
	if err != nil {
		t.Fatal(err)
	}
	if string(encodeRecord(a)) != string(body) || string(encodeRecord(plain)) != string(body) {
		t.Fatal("a record decoded through the table re-encodes differently")
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	for _, pair := range [][3]string{{a.Namespace, b.Namespace, plain.Namespace}, {a.Source, b.Source, plain.Source},
		{a.Tags[1], b.Tags[1], plain.Tags[1]}, {a.Caller, b.Caller, plain.Caller}} {
		if !same(pair[0], pair[1]) || !same(pair[0], pair[2]) {
			t.Errorf("%q is held more than once", pair[0])
		}
	}
	if same(a.Text, b.Text) {
		t.Error("claim texts are interned; they are one per record")
	}
}
