package vaultfmt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// deriver is a collector that derives one item from what it holds: the
// number of live items it knows, and records the payload-end calls.
type deriver struct {
	*collector
	kind       Kind
	extra      []Item
	payloadEnd []uint64
	seenBefore int // items applied when PayloadEnd was called
}

func (d *deriver) DerivedKind() Kind { return d.kind }
func (d *deriver) Derive(epoch uint64, live func(ID) bool) ([]Item, error) {
	n := 0
	for id := range d.items {
		if live(id) && d.items[id].Kind != d.kind {
			n++
		}
	}
	body := []byte(strings.Repeat("d", n+1))
	return append([]Item{{ID: testID(900), Kind: d.kind, Body: body}}, d.extra...), nil
}
func (d *deriver) PayloadEnd(epoch uint64) error {
	d.payloadEnd = append(d.payloadEnd, epoch)
	d.seenBefore = len(d.order)
	return nil
}

// TestDerivedItems: a compaction writes the derived items first in the
// payload and names their kind in the critical header extension; a later
// compaction drops them (even by a handler that derives nothing), and
// PayloadEnd comes between the payload and the journal.
func TestDerivedItems(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"), put(3, "three"))
	v.Close()

	d := &deriver{collector: newCollector(), kind: 9}
	v, err := Open(path, Unlock{Passphrase: testPass}, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if h := v.Header(); h.Derived != 9 {
		t.Fatalf("header derived kind %d, want 9", h.Derived)
	}
	mustAppend(t, v, c, put(4, "four"))
	v.Close()

	d2 := &deriver{collector: newCollector(), kind: 9}
	v, err = Open(path, Unlock{Passphrase: testPass}, d2)
	if err != nil {
		t.Fatal(err)
	}
	if first := d2.order[0].Item; first.ID != testID(900) || string(first.Body) != "dddd" {
		t.Fatalf("first payload item %x %q, want the derived one", first.ID, first.Body)
	}
	if len(d2.payloadEnd) != 1 || d2.payloadEnd[0] != 1 || d2.seenBefore != 4 || len(d2.order) != 5 {
		t.Fatalf("payload end %v after %d of %d changes", d2.payloadEnd, d2.seenBefore, len(d2.order))
	}
	v.Close()

	// A handler that derives nothing still drops the old derived items.
	v, c3 := reopen(t, path)
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if h := v.Header(); h.Derived != 0 {
		t.Fatalf("derived kind %d after a compaction that derived nothing", h.Derived)
	}
	v.Close()
	_, c4 := reopen(t, path)
	if _, ok := c4.items[testID(900)]; ok || len(c4.items) != 4 {
		t.Fatalf("after the plain compaction: %d items, derived one kept: %v", len(c4.items), ok)
	}
	_ = c3
}

// TestDerivedItemMayNotTakeAStoredID: a derived item under the id of a
// stored item, or of another kind, stops the compaction.
func TestDerivedItemMayNotTakeAStoredID(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	v.Close()
	for name, extra := range map[string]Item{
		"stored id":  {ID: testID(1), Kind: 9, Body: []byte("x")},
		"other kind": {ID: testID(901), Kind: 2, Body: []byte("x")},
	} {
		d := &deriver{collector: newCollector(), kind: 9, extra: []Item{extra}}
		v, err := Open(path, Unlock{Passphrase: testPass}, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Compact(); err == nil {
			t.Errorf("%s: compaction accepted it", name)
		}
		v.Close()
		_, c := reopen(t, path)
		if len(c.items) != 1 {
			t.Errorf("%s: vault changed: %d items", name, len(c.items))
		}
	}
}

// TestDerivedExtensionIsCritical: a header naming derived kind 0, or a
// derived record of the wrong size, is damage; a build that does not know
// the record refuses it (any critical record, tested in the header tests).
func TestDerivedExtensionIsCritical(t *testing.T) {
	if extDerived&extCritical == 0 {
		t.Fatal("the derived-items record must be critical")
	}
	h := &header{version: formatVersion, slots: []slot{{kind: SlotPassphrase, kdf: fastKDF}}, derived: 9}
	k, _ := deriveKeys(make([]byte, keySize), h.vaultID)
	raw := h.seal(h.encodeBody(), k)
	got, err := parseHeader(raw)
	if err != nil || got.derived != 9 {
		t.Fatalf("round trip: %v, kind %d", err, got.derived)
	}
	h.derived = 0
	body := h.encodeBody()
	// Append a derived record of kind 0 by hand.
	body = append(body[:len(body)-4], 5, 0, 0, 0, 0x02, 0x80, 1, 0, 0)
	binary.LittleEndian.PutUint32(body[12:], uint32(len(body)+trailerSize))
	_, err = parseHeader(h.seal(body, k))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "derived") {
		t.Fatalf("derived kind 0: %v, want ErrCorrupt about the derived record", err)
	}
}

// TestParallelReplay: a payload of many frames, opened several at a time,
// reaches the handler in file order, and a changed byte in any one of its
// frames (near the start, the middle, the end) is still damage at that
// frame.
func TestParallelReplay(t *testing.T) {
	old := payloadFrameTarget
	payloadFrameTarget = 1
	defer func() { payloadFrameTarget = old }()
	path, v, c := newTestVault(t)
	var changes []Change
	const n = 300 // well above the frames the opener runs ahead
	for i := range n {
		changes = append(changes, put(i+1, strings.Repeat("x", i%50)))
	}
	mustAppend(t, v, c, changes...)
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v2, c2 := reopen(t, path)
	v2.Close()
	sameItems(t, c2, c)
	for i, ch := range c2.order {
		if ch.Item.ID != testID(i+1) {
			t.Fatalf("change %d is item %x: not in file order", i, ch.Item.ID)
		}
	}
	clean := readFile(t, path)
	l := layoutOf(t, clean)
	for _, frame := range []int{1, n / 2, n - 2} {
		b := bytes.Clone(clean)
		f := l.payload[frame]
		b[f.off+40] ^= 0x10 // inside the ciphertext
		writeFile(t, path, b)
		_, err := Open(path, Unlock{Passphrase: testPass}, newCollector())
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%d", f.off)) {
			t.Errorf("frame %d changed: %v, want damage at offset %d", frame, err, f.off)
		}
	}
	writeFile(t, path, clean)
}

// TestPlainPutBytes: a derived item stored plain is, in its frame's
// plaintext, exactly op 5, the id, the kind, the body length (u32 LE) and
// the body (FORMAT.md 2.6), and reads back as a put of that body.
func TestPlainPutBytes(t *testing.T) {
	e := entry{op: OpPut, id: ID{0xff, 'i', 'x'}, kind: 4, plain: []byte("abc"), stored: true}
	got := hex.EncodeToString(frameEntries([]entry{e}, batchMark{}))
	want := "01000000" + "05" + "ff6978" + strings.Repeat("00", 13) + "04" + "03000000" + "616263"
	if got != want {
		t.Fatalf("frame plaintext\n got %s\nwant %s", got, want)
	}
	b, _ := hex.DecodeString(want)
	es, _, err := parseEntries(b)
	if err != nil || len(es) != 1 || es[0].op != OpPut || !es[0].stored || es[0].id != e.id || es[0].kind != 4 || string(es[0].plain) != "abc" {
		t.Fatalf("read back %+v, %v", es, err)
	}
	if body, err := openItem(nil, [16]byte{}, &es[0]); err != nil || string(body) != "abc" {
		t.Fatalf("openItem: %q, %v", body, err)
	}
	if s := sealOf(&es[0]); s != (Seal{}) {
		t.Fatalf("a plain put has seal %x, want none", s)
	}
}
