package fts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkInfo fails unless every document's slot has the document's info,
// every other slot is free with zero info, the lengths add up to the
// index's word count, and each linked slot's term list is exactly the
// terms whose postings name it: a query reads info and postings, a
// Delete the term lists.
func checkInfo(t *testing.T, x *Index, when string) {
	t.Helper()
	used := make([]bool, len(x.info))
	var words int64
	for _, doc := range x.docs.appendDocs(nil) {
		s, _ := x.docs.get(doc)
		if x.info[s].doc != doc || used[s] {
			t.Fatalf("%s: doc %d maps to slot %d, whose info says %+v", when, doc, s, x.info[s])
		}
		used[s] = true
		words += int64(x.info[s].words)
	}
	if words != x.words {
		t.Fatalf("%s: the documents hold %d words, the index counts %d", when, words, x.words)
	}
	holds := make([][]uint32, len(x.info)) // by slot: the terms whose postings name it
	for id, tm := range x.terms {
		for _, s := range tm.slots {
			if !used[s] {
				t.Fatalf("%s: term %q names free slot %d", when, tm.text, s)
			}
			holds[s] = append(holds[s], uint32(id))
		}
	}
	for s := range x.info {
		if !used[s] && x.info[s] != (slotInfo{}) {
			t.Fatalf("%s: free slot %d has info %+v", when, s, x.info[s])
		}
		if uint32(s) < x.unlinked {
			continue
		}
		var list []uint32
		if s < len(x.slotTerms) {
			list = slices.Sorted(slices.Values(x.slotTerms[s]))
		}
		if !slices.Equal(list, holds[s]) {
			t.Fatalf("%s: slot %d lists terms %v, the postings %v", when, s, list, holds[s])
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
	y := restored(t, x)
	checkInfo(t, y, "restored")
	queries := []string{"tea", "staging key", "postgres port 5432", "alice bob coffee", "teas", "postgre"}
	same := func(when string) {
		t.Helper()
		for _, q := range queries {
			a, b := x.Search(q), y.Search(q)
			if !slices.EqualFunc(a.Top(a.Len()), b.Top(b.Len()), sameHit) {
				t.Errorf("%s: %q: the restored index finds other hits", when, q)
			}
		}
	}
	same("restored")
	// The same changes to both, past the restore: the first delete links
	// the restored slots' term lists, and documents far past the others
	// go to the table's map.
	for i := range 2000 {
		doc := uint32(rng.IntN(500))
		if rng.IntN(50) == 0 {
			doc = 1<<31 + uint32(rng.IntN(3))
		}
		if rng.IntN(4) == 0 {
			x.Delete(doc)
			y.Delete(doc)
			continue
		}
		text := words[rng.IntN(len(words))] + fmt.Sprintf(" new%d", rng.IntN(50))
		x.Add(doc, text)
		y.Add(doc, text)
		if i%400 == 0 {
			checkInfo(t, y, fmt.Sprintf("restored, after %d changes", i))
			same(fmt.Sprintf("after %d changes", i))
		}
	}
	checkInfo(t, y, "restored, after the changes")
	same("after the changes")
	bx, _ := x.MarshalBinary()
	by, _ := y.MarshalBinary()
	if !bytes.Equal(bx, by) {
		t.Fatalf("after the same changes the snapshots differ")
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
