package fts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkInfo fails unless every slot's info is its document and length:
// a query reads info where it read the slots.
func checkInfo(t *testing.T, x *Index, when string) {
	t.Helper()
	if len(x.info) != len(x.slots) {
		t.Fatalf("%s: %d infos for %d slots", when, len(x.info), len(x.slots))
	}
	for s, sl := range x.slots {
		if x.info[s] != (slotInfo{doc: sl.doc, words: sl.words}) {
			t.Fatalf("%s: slot %d is doc %d of %d words, its info says %+v", when, s, sl.doc, sl.words, x.info[s])
		}
	}
}

// TestSlotInfoFollowsSlots: through adds, replacements, deletes (whose
// slots are reused) and a snapshot round trip, the slot info stays the
// slots' own, so searches read the documents and lengths they did.
func TestSlotInfoFollowsSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	words := []string{"tea", "coffee", "staging", "deploy", "alice", "bob", "port", "5432", "postgres", "key"}
	x := New()
	for i := range 3000 {
		doc := uint32(rng.IntN(400))
		if rng.IntN(4) == 0 {
			x.Delete(doc)
			continue
		}
		text := ""
		for range 1 + rng.IntN(12) {
			text += words[rng.IntN(len(words))] + " "
		}
		x.Add(doc, text)
		if i%500 == 0 {
			checkInfo(t, x, fmt.Sprintf("after %d changes", i))
		}
	}
	checkInfo(t, x, "after the changes")
	b, err := x.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	y := New()
	if err := y.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	checkInfo(t, y, "restored")
	for _, q := range []string{"tea", "staging key", "postgres port 5432", "alice bob coffee"} {
		a, b := x.Search(q), y.Search(q)
		if !slices.EqualFunc(a.Top(a.Len()), b.Top(b.Len()), sameHit) {
			t.Errorf("%q: the restored index finds other hits", q)
		}
	}
}

// TestReleasedHitsAreNotShared: a query after another's Release reuses
// its hits' memory, and finds exactly what it finds on an index that
// never reused any (and the released result holds nothing any more).
func TestReleasedHitsAreNotShared(t *testing.T) {
	x, fresh := sampleIndex(), sampleIndex()
	queries := []string{"tea", "staging key", "9f3c2a1b", "coffee", "bob@example.com", "tea coffee alice"}
	for range 3 {
		for _, q := range queries {
			got := x.Search(q)
			want := fresh.Search(q)
			if !slices.EqualFunc(got.Top(got.Len()), want.Top(want.Len()), sameHit) || got.Mode != want.Mode {
				t.Fatalf("%q after releases: %v, want %v", q, got.Top(got.Len()), want.Top(want.Len()))
			}
			got.Release()
			if got.Len() != 0 {
				t.Fatalf("%q: a released result still holds %d hits", q, got.Len())
			}
		}
	}
}
