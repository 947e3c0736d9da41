package vaultfmt

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// sealer derives one item listing (id ‖ seal) of every live item, skips
// on open the items that list names with the same seal, and can refuse
// what it skipped at the payload's end.
type sealer struct {
	*collector
	kind    Kind
	derived []byte // the list it read back during the replay
	refuse  int    // PayloadEnd returns ErrReplayOpened this many times
	ends    int
	seals   map[ID]Seal // what DeriveSealed was given
	// pads is how many more derived items DeriveSealed adds after the
	// list, each too large to share a frame.
	pads int
}

// sealerPad is the body of a sealer's derived pad item i.
func sealerPad(i int) []byte {
	return bytes.Repeat([]byte{byte(i)}, 80<<10+i)
}

func (s *sealer) DerivedKind() Kind { return s.kind }
func (s *sealer) Derive(uint64, func(ID) bool) ([]Item, error) {
	return nil, fmt.Errorf("Derive called on a SealedDeriver")
}
func (s *sealer) DeriveSealed(_ uint64, live func(ID) bool, seal func(ID) (Seal, bool)) ([]Item, error) {
	var list []byte
	s.seals = map[ID]Seal{}
	for id, it := range s.items {
		if it.Kind == s.kind || !live(id) {
			continue
		}
		sl, ok := seal(id)
		if !ok {
			return nil, fmt.Errorf("no seal for live item %x", id)
		}
		s.seals[id] = sl
		list = append(append(list, id[:]...), sl[:]...)
	}
	items := []Item{{ID: testID(900), Kind: s.kind, Body: list}}
	for i := range s.pads {
		items = append(items, Item{ID: testID(901 + i), Kind: s.kind, Body: sealerPad(i)})
	}
	return items, nil
}
func (s *sealer) Reset() { s.collector.Reset(); s.derived = nil }
func (s *sealer) Apply(c Change) error {
	if c.Op == OpPut && c.Item.Kind == s.kind && c.Item.ID == testID(900) {
		s.derived = c.Item.Body
	}
	if c.Covered && c.Item.Body != nil {
		return fmt.Errorf("a covered item came with a body")
	}
	if c.Covered {
		// Cover is the list position the predicate returned.
		at := 32 * int(c.Cover)
		if at+32 > len(s.derived) || !bytes.Equal(s.derived[at:at+16], c.Item.ID[:]) {
			return fmt.Errorf("covered item %x came back with cover %d, which names another", c.Item.ID, c.Cover)
		}
	}
	return s.collector.Apply(c)
}
func (s *sealer) SkipOpen() func() func(ID, Kind, Seal) (uint32, bool) {
	list := s.derived
	if list == nil {
		return nil
	}
	return func() func(ID, Kind, Seal) (uint32, bool) {
		return func(id ID, _ Kind, sl Seal) (uint32, bool) {
			for i, b := uint32(0), list; len(b) >= 32; i, b = i+1, b[32:] {
				if bytes.Equal(b[:16], id[:]) && bytes.Equal(b[16:32], sl[:]) {
					return i, true
				}
			}
			return 0, false
		}
	}
}
func (s *sealer) PayloadEnd(uint64) error {
	s.ends++
	if s.refuse > 0 {
		s.refuse--
		return fmt.Errorf("stale: %w", ErrReplayOpened)
	}
	return nil
}

// TestSkipOpenAndReplayAgain: a compaction gives a SealedDeriver the
// seals of the live items and writes its derived items in frames of their
// own; a Skipper then gets the payload items it names without their
// bodies (journal items always opened), and a PayloadEnd that refuses
// makes the vault replay again opening everything. The bodies fill more
// than a hundred payload frames, so the frames are opened on several
// goroutines (the predicate among them; run it with -race).
func TestSkipOpenAndReplayAgain(t *testing.T) {
	path, v, c := newTestVault(t)
	var changes []Change
	pad := strings.Repeat("p", 24<<10)
	for i := 1; i <= 300; i++ {
		changes = append(changes, put(i, fmt.Sprintf("body %d", i)+pad))
	}
	mustAppend(t, v, c, changes...)
	v.Close()
	s := &sealer{collector: newCollector(), kind: 9}
	v, err := Open(path, Unlock{Passphrase: testPass}, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if len(s.seals) != 300 {
		t.Fatalf("%d seals given, want 300", len(s.seals))
	}
	mustAppend(t, v, s.collector, put(7, "seven again"), put(301, "new"))
	v.Close()

	for _, refuse := range []int{0, 1} {
		r := &sealer{collector: newCollector(), kind: 9, refuse: refuse}
		v, err := Open(path, Unlock{Passphrase: testPass}, r)
		if err != nil {
			t.Fatal(err)
		}
		covered := 0
		for _, ch := range r.order {
			if ch.Covered {
				covered++
			}
		}
		want := 300
		if refuse > 0 {
			want = 0
			if r.ends != 2 || r.resets < 1 {
				t.Errorf("refused: %d payload ends, %d resets", r.ends, r.resets)
			}
		}
		if covered != want {
			t.Errorf("refuse %d: %d items covered, want %d", refuse, covered, want)
		}
		if got := r.items[testID(7)]; string(got.Body) != "seven again" {
			t.Errorf("the journal's version of item 7: %q", got.Body)
		}
		if got := r.items[testID(301)]; string(got.Body) != "new" {
			t.Errorf("journal item 301: %q", got.Body)
		}
		if refuse > 0 {
			if got := r.items[testID(5)]; string(got.Body) != "body 5"+pad {
				t.Errorf("after the second replay item 5 is %q", got.Body)
			}
		}
		v.Close()
	}
}

// TestSkipNeedsDerivedFramesOfTheirOwn: the derived items never share a
// frame with other items, whatever their size.
func TestSkipNeedsDerivedFramesOfTheirOwn(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"))
	v.Close()
	s := &sealer{collector: newCollector(), kind: 9}
	v, err := Open(path, Unlock{Passphrase: testPass}, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	r := &sealer{collector: newCollector(), kind: 9}
	v, err = Open(path, Unlock{Passphrase: testPass}, r)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	covered := 0
	for _, ch := range r.order {
		if ch.Covered {
			covered++
		}
	}
	// A frame mixing the derived item with the others would leave none
	// sealed.
	if covered != 2 {
		t.Errorf("%d of 2 items left sealed", covered)
	}
}

// TestSkipAfterManyDerivedFrames: derived items filling several frames
// are opened on several goroutines (run it with -race) and still reach
// the handler first, whole and in order, before it is asked what to skip;
// a changed byte in any one of those frames is reported at that frame.
//
// It runs on both ways derived items are stored: plain (what this build
// writes, extension 0x8003) and each under its item key (0x8002, the
// vaults written before), which still open.
func TestSkipAfterManyDerivedFrames(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sealed=%v", sealed), func(t *testing.T) {
			defer func(was bool) { writeDerivedSealed = was }(writeDerivedSealed)
			writeDerivedSealed = sealed
			testSkipAfterManyDerivedFrames(t, sealed)
		})
	}
}

func testSkipAfterManyDerivedFrames(t *testing.T, legacy bool) {
	const pads = 9
	path, v, c := newTestVault(t)
	var changes []Change
	for i := 1; i <= 300; i++ {
		changes = append(changes, put(i, fmt.Sprintf("body %d", i)))
	}
	mustAppend(t, v, c, changes...)
	v.Close()
	s := &sealer{collector: newCollector(), kind: 9, pads: pads}
	if v, err := Open(path, Unlock{Passphrase: testPass}, s); err != nil {
		t.Fatal(err)
	} else {
		if err := v.Compact(); err != nil {
			t.Fatal(err)
		}
		v.Close()
	}

	r := &sealer{collector: newCollector(), kind: 9}
	v, err := Open(path, Unlock{Passphrase: testPass}, r)
	if err != nil {
		t.Fatal(err)
	}
	k := *v.k // Close wipes the keys
	v.Close()
	if len(r.order) != 301+pads {
		t.Fatalf("%d changes replayed, want %d", len(r.order), 301+pads)
	}
	for i, ch := range r.order[:1+pads] {
		if ch.Item.Kind != 9 || ch.Covered {
			t.Fatalf("change %d is item %x kind %d covered %v, want a derived item with its body", i, ch.Item.ID, ch.Item.Kind, ch.Covered)
		}
		if i > 0 && (ch.Item.ID != testID(900+i) || !bytes.Equal(ch.Item.Body, sealerPad(i-1))) {
			t.Fatalf("derived change %d is item %x (%d bytes), want pad %d", i, ch.Item.ID, len(ch.Item.Body), i-1)
		}
	}
	for _, ch := range r.order[1+pads:] {
		if !ch.Covered {
			t.Fatalf("item %x was opened, want it covered", ch.Item.ID)
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	start := int64(h.length)
	raw, _, err := scanFrames(data[start:start+int64(h.payloadLen)], start, "payload", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < pads+2 {
		t.Fatalf("%d payload frames, want the %d derived items in frames of their own", len(raw), pads+1)
	}
	for _, bad := range []int{0, 3, pads} {
		damaged := bytes.Clone(data)
		damaged[raw[bad].off+frameHeaderSize+100] ^= 1
		if err := os.WriteFile(path, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, Unlock{Passphrase: testPass}, &sealer{collector: newCollector(), kind: 9})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Offset != raw[bad].off {
			t.Errorf("derived frame %d changed: open says %v, want damage at offset %d", bad, err, raw[bad].off)
		}
	}
	// The header says how the derived items are stored, and they are.
	if h.plainDer == legacy {
		t.Fatalf("header: derived items plain %v, want %v", h.plainDer, !legacy)
	}
	const bad = 3
	es, _, err := openItemFrame(&k, h, rolePayload, "payload", bad, raw[bad])
	if err != nil || len(es) != 1 {
		t.Fatalf("derived frame %d: %d entries, %v", bad, len(es), err)
	}
	if es[0].stored == legacy {
		t.Fatalf("derived frame %d: entry stored plain %v, want %v", bad, es[0].stored, !legacy)
	}
	if !legacy {
		// Its frame is its seal: the plain put is refused anywhere else
		// (another kind, or a file whose header does not say so), and a
		// sealed derived put in a file that stores them plain is too.
		other := *h
		other.plainDer = false
		if _, _, err := openItemFrame(&k, &other, rolePayload, "payload", bad, raw[bad]); err == nil || !strings.Contains(err.Error(), "plain put") {
			t.Errorf("a plain put in a file whose header does not say so: %v", err)
		}
		other = *h
		other.derived = 8
		if _, _, err := openItemFrame(&k, &other, rolePayload, "payload", bad, raw[bad]); err == nil || !strings.Contains(err.Error(), "plain put") {
			t.Errorf("a plain put of another kind than the derived one: %v", err)
		}
		old, err := sealItem(&k, h.vaultID, rand.Reader, Change{Op: OpPut, Item: Item{ID: es[0].id, Kind: es[0].kind, Body: es[0].plain}})
		if err != nil {
			t.Fatal(err)
		}
		pt := frameEntries([]entry{old}, batchMark{})
		if _, _, err := parseEntries(pt); err != nil {
			t.Fatal(err)
		}
		if es2, _, _ := parseEntries(pt); checkStored(es2, h, rolePayload) == nil {
			t.Errorf("a derived item sealed under an item key in a file that stores them plain was taken")
		}
		if es2, _, _ := parseEntries(frameEntries(es, batchMark{})); checkStored(es2, h, roleJournal) == nil {
			t.Errorf("a plain put in the journal was taken")
		}
		return
	}
	// A derived body changed inside a frame that still authenticates (a
	// writer holding the frame key): its own seal refuses it.
	es[0].sealedBody[nonceSize+100] ^= 1
	sealed, err := seal(nil, k.frame[:], rand.Reader, frameEntries(es, batchMark{}), aadFrame(rolePayload, h.vaultID, h.epoch, bad))
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(data)
	copy(damaged[raw[bad].off:], appendFrame(nil, sealed))
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, Unlock{Passphrase: testPass}, &sealer{collector: newCollector(), kind: 9})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Region != "item" || ce.Offset != raw[bad].off || !strings.Contains(ce.Reason, "item body") {
		t.Errorf("a derived body changed under a good frame: open says %v, want its item body refused at offset %d", err, raw[bad].off)
	}
}
