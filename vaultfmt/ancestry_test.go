package vaultfmt

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// seenAt is a state as a rollback check remembers it.
type seenAt struct {
	epoch, seq uint64
	chain      [32]byte
}

func seenNow(t *testing.T, v *Vault) seenAt {
	t.Helper()
	p, err := v.Position()
	if err != nil {
		t.Fatal(err)
	}
	return seenAt{p.Epoch, p.Seq, p.Chain}
}

func (s seenAt) in(v *Vault) Descent { return v.DescendsFrom(s.epoch, s.seq, s.chain) }

// copyVault copies the file at path to a new one (another machine's copy)
// and opens it.
func copyVault(t *testing.T, path string) (string, *Vault) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy.vault")
	writeFile(t, dst, readFile(t, path))
	v, _ := reopen(t, dst)
	return dst, v
}

func mustCompact(t *testing.T, v *Vault) {
	t.Helper()
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
}

// TestAncestryRecordsTheParentEpoch: a compaction writes the epoch it
// came from into the new header (frames, chain, tags), every state of that
// epoch is then known to be held, and a state that is not is refused.
func TestAncestryRecordsTheParentEpoch(t *testing.T) {
	path, v, c := newTestVault(t)
	var seen []seenAt
	for i := 0; i < 3; i++ {
		seen = append(seen, seenNow(t, v))
		mustAppend(t, v, c, put(i, fmt.Sprint("item ", i)))
	}
	seen = append(seen, seenNow(t, v))
	mustCompact(t, v)
	v2, _ := reopen(t, path)
	as := v2.st.hdr.ancestry
	if len(as) != 1 || as[0].epoch != 0 || as[0].seq != 3 || len(as[0].tags) != 3 || as[0].chain != seen[3].chain {
		t.Fatalf("ancestry %+v", as)
	}
	for i, s := range seen {
		if d := s.in(v2); d != Descends {
			t.Errorf("state %d of epoch 0: %v, want Descends", i, d)
		}
	}
	bad := seen[2]
	bad.chain[0] ^= 1
	if d := bad.in(v2); d != Diverges {
		t.Errorf("another chain at write 2: %v", d)
	}
	if d := (seenAt{0, 4, seen[3].chain}).in(v2); d != Diverges {
		t.Errorf("a state past the frames the epoch had: %v", d)
	}
	if d := (seenAt{2, 0, seen[0].chain}).in(v2); d != Diverges {
		t.Errorf("a later epoch than the file's: %v", d)
	}
}

// TestAncestryTellsACopyThatDiverged: two copies of one state, written to
// separately, one of them compacted: the compacted one does not hold what
// the other saw, and the one that only moved forward does.
func TestAncestryTellsACopyThatDiverged(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "A"))
	_, other := copyVault(t, path)
	forward := seenNow(t, v)
	mustAppend(t, v, c, put(2, "B")) // only here
	here := seenNow(t, v)

	mustAppend(t, other, nil, put(3, "elsewhere 1"), put(4, "elsewhere 2"))
	mustAppend(t, other, nil, put(5, "elsewhere 3"))
	mustCompact(t, other)
	if d := here.in(other); d != Diverges {
		t.Fatalf("the copy compacted elsewhere holds B: %v", d)
	}
	if d := forward.in(other); d != Descends {
		t.Fatalf("the copy compacted elsewhere does not hold A: %v", d)
	}
	// Compacted again, and again: still told apart.
	mustCompact(t, other)
	mustAppend(t, other, nil, put(6, "elsewhere 4"))
	mustCompact(t, other)
	if d := here.in(other); d != Diverges {
		t.Fatalf("after three compactions elsewhere: %v", d)
	}
	if d := forward.in(other); d != Descends {
		t.Fatalf("after three compactions elsewhere, the forward state: %v", d)
	}
}

// TestAncestryIsBounded: more than maxAncestors compactions since a state,
// or more frames after it than the record keeps tags of, cannot be
// verified: DescentUnknown, never Descends.
func TestAncestryIsBounded(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "A"))
	old := seenNow(t, v)
	for i := 0; i < maxAncestors; i++ {
		mustCompact(t, v)
		if d := old.in(v); d != Descends {
			t.Fatalf("after %d compactions: %v", i+1, d)
		}
	}
	mustCompact(t, v)
	if d := old.in(v); d != DescentUnknown {
		t.Fatalf("after %d compactions: %v, want DescentUnknown", maxAncestors+1, d)
	}
	v2, _ := reopen(t, path)
	if n := len(v2.st.hdr.ancestry); n != maxAncestors {
		t.Fatalf("%d ancestors kept", n)
	}

	// Tags: the newest maxAncestorTags frames of an epoch.
	_, v, c = newTestVault(t)
	early := seenNow(t, v)
	var mid seenAt
	for i := 0; i < maxAncestorTags+3; i++ {
		if i == 3 {
			mid = seenNow(t, v)
		}
		mustAppend(t, v, c, put(i, "x"))
	}
	mustCompact(t, v)
	if d := early.in(v); d != DescentUnknown {
		t.Fatalf("a state %d frames before the compaction: %v", maxAncestorTags+3, d)
	}
	if d := mid.in(v); d != Descends {
		t.Fatalf("a state exactly %d frames before the compaction: %v", maxAncestorTags, d)
	}
	mid.chain[5] ^= 0x80
	if d := mid.in(v); d != Diverges {
		t.Fatalf("another history at that state: %v", d)
	}
	if n := len(v.st.hdr.ancestry[0].tags); n != maxAncestorTags {
		t.Fatalf("%d tags kept", n)
	}
}

// TestAncestryFromAnOlderBuild: an older build skips the record (it is not
// critical) and compacts without it; a state from before such a
// compaction cannot be verified, and the next compaction by this build
// starts the record again from the epoch it compacts.
func TestAncestryFromAnOlderBuild(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "A"))
	old := seenNow(t, v)
	mustCompact(t, v)
	v.Close()
	if extAncestry&extCritical != 0 {
		t.Fatal("the ancestry record must not be critical: older builds must still open the file")
	}
	asOlderBuildWrote(t, path)
	v2, c2 := reopen(t, path)
	if len(c2.items) != 1 || v2.st.hdr.ancestry != nil {
		t.Fatalf("items %v, ancestry %+v", c2.ids(), v2.st.hdr.ancestry)
	}
	if d := old.in(v2); d != DescentUnknown {
		t.Fatalf("state before an older build's compaction: %v", d)
	}
	mid := seenNow(t, v2)
	mustCompact(t, v2)
	if d := mid.in(v2); d != Descends || old.in(v2) != DescentUnknown {
		t.Fatalf("after compacting again: %v, %v", mid.in(v2), old.in(v2))
	}
}

// asOlderBuildWrote rewrites the vault's header without the ancestry
// record, as an older build's compaction leaves it (payload frames are
// bound to their epoch and seq, not their offset, so they stay valid).
func asOlderBuildWrote(t *testing.T, path string) {
	t.Helper()
	v, _ := reopen(t, path)
	b := readFile(t, path)
	h := *v.st.hdr
	oldLen := h.length
	h.ancestry = nil
	raw := h.seal(h.encodeBody(), v.k)
	v.Close()
	writeFile(t, path, append(raw, b[oldLen:]...))
}

// TestAncestryRecordDamage: a record a writer could not have written is
// damage to the header; a well-formed one re-encodes to its own bytes.
func TestAncestryRecordDamage(t *testing.T) {
	one := ancestor{epoch: 4, seq: 2, chain: [32]byte{1}, tags: [][tagSize]byte{{2}, {3}}}
	good := encodeAncestry([]ancestor{one})
	if as, err := parseAncestry(good); err != nil || !bytes.Equal(encodeAncestry(as), good) {
		t.Fatalf("good record: %v", err)
	}
	cases := map[string][]byte{
		"empty":                 nil,
		"zero epochs":           {0},
		"nine epochs":           append([]byte{9}, good[1:]...),
		"not consecutive":       encodeAncestry([]ancestor{one, {epoch: 2}}),
		"more than there were":  encodeAncestry([]ancestor{{epoch: 1}, {epoch: 0}, {epoch: 0}}),
		"truncated":             good[:len(good)-1],
		"trailing byte":         append(bytes.Clone(good), 0),
		"more tags than frames": encodeAncestry([]ancestor{{epoch: 4, seq: 1, tags: one.tags}}),
		"too many tags":         encodeAncestry([]ancestor{{epoch: 4, seq: 5000, tags: make([][tagSize]byte, maxAncestorTags+1)}}),
		"tag budget": encodeAncestry([]ancestor{
			{epoch: 9, seq: 5000, tags: make([][tagSize]byte, maxAncestorTags)},
			{epoch: 8, seq: 5000, tags: make([][tagSize]byte, maxAncestorTags)},
			{epoch: 7, seq: 5000, tags: make([][tagSize]byte, 1)}}),
	}
	for name, val := range cases {
		if _, err := parseAncestry(val); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// In a header: reported as damage, not skipped.
	_, v, _ := newTestVault(t)
	mustAppend(t, v, nil, put(1, "A"))
	mustCompact(t, v)
	h := *v.st.hdr
	h.ancestry = []ancestor{{epoch: 0, seq: 9, tags: make([][tagSize]byte, 10)}}
	if _, err := parseHeader(h.seal(h.encodeBody(), v.k)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a bad record in a header: %v", err)
	}
}

// FuzzParseAncestry: the ancestry parser takes any bytes without
// panicking, and what it accepts re-encodes to the same bytes and
// keeps its bounds.
func FuzzParseAncestry(f *testing.F) {
	f.Add(encodeAncestry([]ancestor{{epoch: 0, seq: 1, tags: make([][tagSize]byte, 1)}}))
	f.Add(encodeAncestry([]ancestor{{epoch: 6, seq: 3, tags: make([][tagSize]byte, 2)}, {epoch: 5}}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		as, err := parseAncestry(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeAncestry(as), b) {
			t.Fatalf("accepted record does not re-encode to its bytes")
		}
		total := 0
		for i, a := range as {
			total += len(a.tags)
			if a.epoch != as[0].epoch-uint64(i) || uint64(len(a.tags)) > a.seq || len(a.tags) > maxAncestorTags {
				t.Fatalf("accepted ancestor %d out of bounds: epoch %d, seq %d, %d tags", i, a.epoch, a.seq, len(a.tags))
			}
		}
		if len(as) < 1 || len(as) > maxAncestors || total > maxAncestryTags {
			t.Fatalf("accepted %d ancestors, %d tags", len(as), total)
		}
	})
}
