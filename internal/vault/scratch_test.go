package vault

import (
	"bytes"
	"slices"
	"testing"
)

// TestWindowsKeptFromAReplayAreTheirOwn: a replay decodes records' int8
// windows into one scratch buffer while an early segment is there to
// take them. The records whose windows the segment does not hold (here
// two whose vectors the segment swapped, so it is refused and every
// record rebuilt) keep copies of their own: each record reads back
// exactly as an open without segments decodes it, not as whatever record
// was decoded last.
func TestWindowsKeptFromAReplayAreTheirOwn(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(200))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	old, hdr := readSegment(t, h.path)
	seg, err := decodeSegment(old)
	if err != nil {
		t.Fatal(err)
	}
	s := *seg
	s.epoch = hdr.Epoch + 1
	s.ids = slices.Clone(s.ids)
	s.ids[0], s.ids[1] = s.ids[1], s.ids[0]
	writeStale(t, h.path, s.encode())

	r := h.open("user")
	if restoredFromSegment(r) || r.st.segErr == nil {
		t.Fatalf("want the swapped segment refused: used %v, %v", restoredFromSegment(r), r.st.segErr)
	}
	useSegments = false
	defer func() { useSegments = true }()
	plain := h.open("user")
	if plain.st.records.len() != r.st.records.len() {
		t.Fatalf("%d records, want %d", r.st.records.len(), plain.st.records.len())
	}
	for id, rec := range r.st.records.all() {
		if !bytes.Equal(encodeRecord(rec), encodeRecord(plain.st.records.get(id))) {
			t.Fatalf("record %s reads back other windows than it stored", id)
		}
	}
}

// TestScratchDecodeThenOwn: windows decoded into a scratch alias it until
// own copies them; the copy survives the next decode into the scratch.
func TestScratchDecodeThenOwn(t *testing.T) {
	var model [32]byte
	a := newVectors(model, [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}}, true).encode()
	b := newVectors(model, [][]float32{{0, 0, 1, 0}}, true).encode()
	var scratch []int8
	va, err := decodeVectorsInto(a, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	if &va.I8[0][0] != &scratch[0] {
		t.Fatal("windows were not decoded into the scratch")
	}
	va.own()
	if &va.I8[0][0] == &scratch[0] {
		t.Fatal("own left the windows in the scratch")
	}
	if _, err := decodeVectorsInto(b, &scratch); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(va.encode(), a) {
		t.Fatal("an owned copy changed with the next decode")
	}
}
