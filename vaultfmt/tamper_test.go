package vaultfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"testing"
)

// layout is where each region of a vault file is, read with the package's
// own scanner.
type layout struct {
	headerLen    int64
	payload      []rawFrame // item frames then the end marker
	journalStart int64
	journal      []rawFrame
}

func layoutOf(t testing.TB, b []byte) layout {
	t.Helper()
	h, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	l := layout{headerLen: int64(h.length), journalStart: int64(h.length) + int64(h.payloadLen)}
	l.payload, _, err = scanFrames(b[h.length:l.journalStart], int64(h.length), "payload", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var torn int64
	l.journal, torn, err = scanFrames(b[l.journalStart:], l.journalStart, "journal", 0, true)
	if err != nil || torn >= 0 {
		t.Fatalf("journal: torn %d, %v", torn, err)
	}
	return l
}

// tamperFixture builds a vault with four payload frames (one item each), an
// end marker and three journal frames, and returns its path, bytes and the
// contents a clean open yields.
func tamperFixture(t testing.TB) (string, []byte, *collector) {
	t.Helper()
	old := payloadFrameTarget
	payloadFrameTarget = 1
	defer func() { payloadFrameTarget = old }()
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "alpha"), put(2, "bravo"), put(3, "charlie"), put(4, "delta"))
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	// Three appends of one change each: frames that commit themselves, so
	// a cut between them is simply fewer writes (batches: batch_test.go).
	mustAppend(t, v, c, put(5, "echo"))
	mustAppend(t, v, c, del(2))
	mustAppend(t, v, c, put(6, "foxtrot"))
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, path)
	if l := layoutOf(t, b); len(l.payload) != 5 || len(l.journal) != 3 {
		t.Fatalf("fixture has %d payload and %d journal frames", len(l.payload), len(l.journal))
	}
	return path, b, c
}

// expectedDamage says what Open must report for a changed byte at off: the
// sentinel, the region, and the frame offset (-1 when not a frame).
//
//lint:ignore ST1008 the error is the expected answer, not a failure of this function
func expectedDamage(l layout, off int64) (error, string, int64) {
	switch {
	case off < 8:
		return ErrNotVault, "", -1
	case off < 10:
		return ErrUnsupportedVersion, "", -1
	case off < l.headerLen:
		return ErrCorrupt, "header", -1
	}
	for i, f := range l.payload {
		if off >= f.off && off < f.off+f.size() {
			if i == len(l.payload)-1 && off >= f.off+frameHeaderSize {
				return ErrCorrupt, "payload end marker", f.off
			}
			return ErrCorrupt, "payload", f.off
		}
	}
	for _, f := range l.journal {
		if off >= f.off && off < f.off+f.size() {
			return ErrCorrupt, "journal", f.off
		}
	}
	panic(fmt.Sprintf("offset %d outside every region", off))
}

// TestTamperMatrix flips one bit in every byte of the file, in turn, and
// checks that Open refuses with the right sentinel and names the region.
func TestTamperMatrix(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	l := layoutOf(t, orig)
	for off := int64(0); off < int64(len(orig)); off++ {
		b := bytes.Clone(orig)
		b[off] ^= 1 << (off % 8)
		writeFile(t, path, b)
		err := openErr(path, Unlock{Passphrase: testPass})
		want, region, frameOff := expectedDamage(l, off)
		if !errors.Is(err, want) {
			t.Fatalf("flip at %d: got %v, want %v", off, err, want)
		}
		var ce *CorruptError
		if region != "" {
			if !errors.As(err, &ce) || ce.Region != region || (frameOff >= 0 && ce.Offset != frameOff) {
				t.Fatalf("flip at %d: got %v, want region %q frame at %d", off, err, region, frameOff)
			}
		}
		if off < l.headerLen {
			_, herr := ReadHeader(path)
			if !errors.Is(herr, want) {
				t.Fatalf("ReadHeader, flip at %d: got %v, want %v", off, herr, want)
			}
		}
	}
}

// TestTruncation cuts the file at every length. Inside the header or the
// payload that is damage; in the journal only the torn tail is dropped, and
// a cut at a frame boundary is simply fewer writes.
func TestTruncation(t *testing.T) {
	path, orig, full := tamperFixture(t)
	l := layoutOf(t, orig)
	for cut := int64(0); cut < int64(len(orig)); cut++ {
		writeFile(t, path, orig[:cut])
		c := newCollector()
		v, err := Open(path, Unlock{Passphrase: testPass}, c)
		switch {
		case cut < 16:
			wantErr(t, err, ErrNotVault, fmt.Sprintf("cut at %d", cut))
			continue
		case cut < l.journalStart:
			wantErr(t, err, ErrCorrupt, fmt.Sprintf("cut at %d", cut))
			continue
		case err != nil:
			t.Fatalf("cut at %d (journal): %v", cut, err)
		}
		complete, tornAt := 0, int64(-1)
		for _, f := range l.journal {
			if f.off+f.size() <= cut {
				complete++
			} else if f.off < cut {
				tornAt = f.off
			}
		}
		if v.Stats().JournalFrames != complete {
			t.Fatalf("cut at %d: %d frames replayed, want %d", cut, v.Stats().JournalFrames, complete)
		}
		if tt := v.Torn(); (tt == nil) != (tornAt < 0) || (tt != nil && (tt.Offset != tornAt || tt.Bytes != cut-tornAt)) {
			t.Fatalf("cut at %d: torn %+v, want offset %d", cut, tt, tornAt)
		}
		v.Close()
	}
	// The full file opens to the full contents.
	writeFile(t, path, orig)
	_, c := reopen(t, path)
	sameItems(t, c, full)
}

// TestTornTailTruncatedBeforeAppend: the next append cuts a torn tail away
// and writes after the last good frame.
func TestTornTailTruncatedBeforeAppend(t *testing.T) {
	path, orig, full := tamperFixture(t)
	l := layoutOf(t, orig)
	last := l.journal[len(l.journal)-1]
	writeFile(t, path, orig[:last.off+last.size()-5])
	v, c := reopen(t, path)
	if tt := v.Torn(); tt == nil || tt.Offset != last.off {
		t.Fatalf("torn %+v, want offset %d", tt, last.off)
	}
	if _, ok := c.items[testID(6)]; ok {
		t.Fatal("the torn frame's item was applied")
	}
	if v.Stats().TornBytes != last.size()-5 {
		t.Fatalf("stats %+v", v.Stats())
	}
	mustAppend(t, v, c, put(7, "golf"))
	v2, c2 := reopen(t, path)
	if v2.Torn() != nil {
		t.Fatalf("torn tail survived the append: %+v", v2.Torn())
	}
	sameItems(t, c2, c)
	delete(full.items, testID(6))
	full.items[testID(7)] = put(7, "golf").Item
	sameItems(t, c2, full)
}

// TestZeroTail: zeros from a frame boundary to the end are an unfinished
// write (the size reached the disk, the data did not), not damage.
func TestZeroTail(t *testing.T) {
	path, orig, full := tamperFixture(t)
	writeFile(t, path, append(bytes.Clone(orig), make([]byte, 300)...))
	v, c := reopen(t, path)
	if tt := v.Torn(); tt == nil || tt.Offset != int64(len(orig)) || tt.Bytes != 300 {
		t.Fatalf("torn %+v", tt)
	}
	sameItems(t, c, full)
	// A non-zero byte in that tail makes it a bad frame header again.
	b := append(bytes.Clone(orig), make([]byte, 300)...)
	b[len(b)-1] = 1
	writeFile(t, path, b)
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrCorrupt, "non-zero tail")
}

// TestCorruptLengthIsNotACrash: a last frame whose length was damaged so
// that it claims more bytes than the file has must be refused, not dropped
// as torn (the original tool's bug).
func TestCorruptLengthIsNotACrash(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	l := layoutOf(t, orig)
	last := l.journal[len(l.journal)-1]
	for _, n := range []uint32{uint32(len(last.body)) + 1, uint32(len(last.body)) + 1000, maxFrameBody + 1, 0xFFFFFFFF, 3} {
		b := bytes.Clone(orig)
		binary.LittleEndian.PutUint32(b[last.off:], n)
		writeFile(t, path, b)
		wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrCorrupt, fmt.Sprintf("length %d", n))
	}
	// An absurd length whose checksum was fixed up is refused too.
	b := bytes.Clone(orig)
	binary.LittleEndian.PutUint32(b[last.off:], maxFrameBody+1)
	binary.LittleEndian.PutUint32(b[last.off+4:], crc32.Checksum(b[last.off:last.off+4], crcTable))
	writeFile(t, path, b)
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrCorrupt, "absurd length, checksum fixed")
}

// fixCRC recomputes the header CRC after a deliberate change.
func fixCRC(b []byte) {
	hl := binary.LittleEndian.Uint32(b[12:])
	binary.LittleEndian.PutUint32(b[hl-4:], crc32.Checksum(b[:hl-4], crcTable))
}

// TestHeaderMAC: a deliberate header change with the CRC recomputed passes
// ReadHeader but fails the MAC after unlock.
func TestHeaderMAC(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	v, err := Open(path, Unlock{Passphrase: testPass}, nil)
	if err != nil {
		t.Fatal(err)
	}
	master := v.MasterKey()
	v.Close()
	pinAt := fixedHeaderSize + slotSize
	cases := map[string]func(b []byte){
		"epoch":       func(b []byte) { b[40]++ },
		"created":     func(b []byte) { b[33]++ },
		"vault id":    func(b []byte) { b[20] ^= 0xFF },
		"payload_len": func(b []byte) { b[48] += 0 }, // unchanged: control, must open
		"pin dim":     func(b []byte) { b[pinAt+2+32] = 0x80 },
		"pin sha":     func(b []byte) { b[pinAt+2+5] ^= 1 },
	}
	for name, change := range cases {
		b := bytes.Clone(orig)
		change(b)
		fixCRC(b)
		writeFile(t, path, b)
		if _, err := ReadHeader(path); err != nil {
			t.Fatalf("%s: ReadHeader: %v", name, err)
		}
		err := openErr(path, Unlock{Passphrase: testPass})
		errMK := openErr(path, Unlock{MasterKey: master})
		if name == "payload_len" {
			if err != nil || errMK != nil {
				t.Fatalf("control: %v / %v", err, errMK)
			}
			continue
		}
		if name == "vault id" {
			// The vault id salts the subkeys and is in every slot's AAD.
			wantErr(t, err, ErrWrongPassphrase, name)
		} else {
			wantErr(t, err, ErrCorrupt, name)
		}
		wantErr(t, errMK, ErrWrongPassphrase, name+" with master key")
	}
	// A slot's stored KDF parameters are bound into its AAD: lowering them
	// leaves a slot that opens nothing.
	b := bytes.Clone(orig)
	binary.LittleEndian.PutUint32(b[fixedHeaderSize+4:], 2)
	fixCRC(b)
	writeFile(t, path, b)
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrWrongPassphrase, "slot time changed")
}

// TestSplicing: frames cannot be reordered, duplicated, moved between
// vaults, between regions, or replayed from an earlier epoch.
func TestSplicing(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	l := layoutOf(t, orig)
	frameBytes := func(b []byte, f rawFrame) []byte { return bytes.Clone(b[f.off : f.off+f.size()]) }
	j0, j1 := frameBytes(orig, l.journal[0]), frameBytes(orig, l.journal[1])
	check := func(name string, b []byte) {
		t.Helper()
		writeFile(t, path, b)
		wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrCorrupt, name)
	}
	// Swap the first two journal frames.
	b := bytes.Clone(orig[:l.journal[0].off])
	b = append(append(append(b, j1...), j0...), orig[l.journal[1].off+l.journal[1].size():]...)
	check("journal frames swapped", b)
	// Replay the first journal frame at the end.
	check("journal frame duplicated", append(bytes.Clone(orig), j0...))
	// Swap two payload frames.
	p0, p1 := frameBytes(orig, l.payload[0]), frameBytes(orig, l.payload[1])
	b = bytes.Clone(orig[:l.payload[0].off])
	b = append(append(append(b, p1...), p0...), orig[l.payload[1].off+l.payload[1].size():]...)
	check("payload frames swapped", b)
	// A payload frame appended as a journal frame.
	check("payload frame in journal", append(bytes.Clone(orig), p0...))
	// Drop a payload frame and patch payload_len and the CRC: the end
	// marker (and the sequence numbers) catch it.
	b = bytes.Clone(orig[:l.payload[3].off])
	b = append(b, orig[l.payload[3].off+l.payload[3].size():]...)
	binary.LittleEndian.PutUint64(b[48:], uint64(l.journalStart-l.headerLen-l.payload[3].size()))
	fixCRC(b)
	check("payload frame dropped", b)

	// A journal frame from another vault with the same passphrase.
	otherPath, ov, _ := newTestVault(t)
	mustAppend(t, ov, nil, put(9, "other vault"))
	ov.Close()
	ob := readFile(t, otherPath)
	ol := layoutOf(t, ob)
	check("frame from another vault", append(bytes.Clone(orig), frameBytes(ob, ol.journal[0])...))

	// A journal frame from an earlier epoch of this same vault, put where
	// its sequence number would match after a compaction.
	writeFile(t, path, orig)
	v, c := reopen(t, path)
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	nb := readFile(t, path)
	check("frame from an earlier epoch", append(nb, j0...))
	_ = c
}

// TestItemKeyBinding: an entry's sealed body and wrapped key are bound to
// its id and kind, so rewriting the id inside a validly sealed frame is
// caught (this needs the frame key, so only a key holder could try it).
func TestItemKeyBinding(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "bound to id 1"))
	e, err := sealItem(v.k, v.st.hdr.vaultID, v.rnd, put(2, "sealed for id 2").Item.asPut())
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*entry){
		"id":   func(e *entry) { e.id = testID(3) },
		"kind": func(e *entry) { e.kind++ },
	} {
		bad := e
		mutate(&bad)
		sealed, err := seal(nil, v.k.frame[:], v.rnd, frameEntries([]entry{bad}, batchMark{}), aadFrame(roleJournal, v.st.hdr.vaultID, v.st.hdr.epoch, v.st.seq))
		if err != nil {
			t.Fatal(err)
		}
		b := appendFrame(readFile(t, path), sealed)
		p2 := filepath.Join(t.TempDir(), "spliced.vault")
		writeFile(t, p2, b)
		err = openErr(p2, Unlock{Passphrase: testPass})
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Region != "item" {
			t.Fatalf("%s changed: got %v, want item damage", name, err)
		}
	}
}

func (it Item) asPut() Change { return Change{Op: OpPut, Item: it} }
