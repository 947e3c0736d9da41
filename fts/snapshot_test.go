package fts

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func sampleIndex() *Index {
	x := New()
	x.Add(7, "Deploy key for staging lives in vault/keys/staging.pem")
	x.Add(3, "Alice prefers tea over coffee")
	x.Add(42, "commit 9f3c2a1b fixed the race in fooBar_baz v1.2.3")
	x.Add(9, "")
	x.Add(100, "tea tea tea")
	x.Delete(100)
	x.Add(5, "coffee at 10:30 with bob@example.com")
	return x
}

func TestSnapshotRoundTrip(t *testing.T) {
	x := sampleIndex()
	b, err := x.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	y := New()
	if err := y.UnmarshalBinary(b); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	if y.Len() != x.Len() || y.VocabularySize() != x.VocabularySize() || y.words != x.words {
		t.Fatalf("restored %d docs %d terms %d words, want %d %d %d", y.Len(), y.VocabularySize(), y.words, x.Len(), x.VocabularySize(), x.words)
	}
	for _, q := range []string{"tea", "staging key", "9f3c2a1b", "foobar", "recieve coffee", "bob@example.com", "v1.2"} {
		a, b := x.Search(q), y.Search(q)
		if !slices.EqualFunc(a.Top(100), b.Top(100), sameHit) || a.Mode != b.Mode {
			t.Errorf("%q: original %v %v, restored %v %v", q, a.Mode, a.Top(100), b.Mode, b.Top(100))
		}
	}
	// The restored index keeps working: adds, deletes and a re-encode.
	y.Add(8, "a brand new memory about tea")
	y.Delete(3)
	x.Add(8, "a brand new memory about tea")
	x.Delete(3)
	bx, _ := x.MarshalBinary()
	by, _ := y.MarshalBinary()
	if !bytes.Equal(bx, by) {
		t.Fatalf("after the same edits the snapshots differ")
	}
}

func TestSnapshotGolden(t *testing.T) {
	x := New()
	x.Add(2, "Tea tea")
	x.Add(5, "tea cup")
	b, _ := x.MarshalBinary()
	// Annotated: header; 2 docs (2: 2 words, 5 = 2+gap 2: 2 words);
	// 2 terms: "cup" df 1 (doc index 1, tf 1), "tea" df 2 (index 0 tf 2,
	// index 1 tf 1).
	want := []byte{
		0x63, 0x46, 0x54, 0x53, 0x01, 0x01, 0x00, 0x00,
		0x02, 0x02, 0x02, 0x02, 0x02,
		0x02,
		0x03, 'c', 'u', 'p', 0x01, 0x01, 0x01,
		0x03, 't', 'e', 'a', 0x02, 0x00, 0x02, 0x00, 0x01,
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("snapshot\n% x\nwant\n% x", b, want)
	}
}

func TestSnapshotRefusals(t *testing.T) {
	good, _ := sampleIndex().MarshalBinary()
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want error
	}{
		{"empty", func([]byte) []byte { return nil }, ErrCorrupt},
		{"magic", func(b []byte) []byte { b[0] = 'x'; return b }, ErrCorrupt},
		{"version", func(b []byte) []byte { b[4] = 2; return b }, ErrCorrupt},
		{"reserved", func(b []byte) []byte { b[7] = 1; return b }, ErrCorrupt},
		{"tokenizer", func(b []byte) []byte { b[5] = TokenizerVersion + 1; return b }, ErrStale},
		{"trailing", func(b []byte) []byte { return append(b, 0) }, ErrCorrupt},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, ErrCorrupt},
		{"huge count", func(b []byte) []byte { return append(b[:8], 0xff, 0xff, 0xff, 0xff, 0x0f) }, ErrCorrupt},
	} {
		x := sampleIndex()
		before, _ := x.MarshalBinary()
		err := x.UnmarshalBinary(tc.edit(slices.Clone(good)))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
		after, _ := x.MarshalBinary()
		if !bytes.Equal(before, after) {
			t.Errorf("%s: a refused snapshot changed the index", tc.name)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	good, _ := sampleIndex().MarshalBinary()
	f.Add(good)
	small := New()
	small.Add(1, "x")
	b, _ := small.MarshalBinary()
	f.Add(b)
	f.Add([]byte("cFTS\x01\x01\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := New()
		if err := x.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrStale) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrStale", err)
			}
			return
		}
		// Whatever parses is canonical and usable.
		again, err := x.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs:\n% x\n% x", data, again)
		}
		// Misspelt and partial terms, so the lazily built trigram
		// table and the prefix runs are read too.
		for _, tm := range x.terms[:min(len(x.terms), 4)] {
			x.Search(tm.text + "q")
			x.Search(strings.TrimSuffix(tm.text, "s") + "ing")
		}
		for _, doc := range x.docs.appendDocs(nil) {
			x.Search(fmt.Sprint(doc))
			x.Delete(doc)
		}
		if x.VocabularySize() != 0 || fuzzyTerms(x) != 0 {
			t.Fatalf("deleting every document left %d terms, %d in the trigram and prefix indexes", x.VocabularySize(), fuzzyTerms(x))
		}
	})
}

// sameHit compares what a hit says, not the slot it was found in (a
// restored index numbers its slots afresh).
func sameHit(a, b Hit) bool {
	a.slot, b.slot = 0, 0
	return a == b
}
