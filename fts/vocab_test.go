package fts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestVocabularyLookups: after a restore and changes that drop restored
// terms, bring some back under their old ids and add new ones, every
// trigram and prefix lookup lists exactly the live terms holding it,
// ascending, as one map over the whole vocabulary did.
func TestVocabularyLookups(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	words := []string{"deploy", "deployed", "deploying", "staging", "stage", "postgres", "postgre", "tea", "teas",
		"ключ", "ключи", "naïve", "naïveté", "a", "bb", "9f3c2a1b", "9f3c2a1c", "x\x00\x00\x00y"}
	text := func() string {
		s := ""
		for range 1 + rng.IntN(5) {
			s += words[rng.IntN(len(words))] + fmt.Sprintf(" w%d ", rng.IntN(300))
		}
		return s
	}
	x := New()
	for doc := range 400 {
		x.Add(uint32(doc), text())
	}
	b, _ := x.MarshalBinary()
	y := New()
	if err := y.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		want := map[uint64][]uint32{}
		prefixes := map[string][]uint32{}
		for id, tm := range y.terms {
			if tm.text == "" {
				continue
			}
			for _, g := range termGrams(tm.text) {
				want[g] = append(want[g], uint32(id))
			}
			if p, ok := variantKey(tm.text); ok {
				prefixes[p] = append(prefixes[p], uint32(id))
			}
		}
		for g, ids := range want {
			var got []uint32
			y.withGram(g, func(id uint32) { got = append(got, id) })
			if !slices.Equal(got, ids) {
				t.Fatalf("%s: trigram %x lists %v, want %v", when, g, got, ids)
			}
		}
		for p, ids := range prefixes {
			var got []uint32
			y.prefixed(p, func(id uint32) { got = append(got, id) })
			if !slices.Equal(got, ids) {
				t.Fatalf("%s: prefix %q lists %v, want %v", when, p, got, ids)
			}
		}
		// A trigram no live term holds lists nothing.
		y.withGram(gramKey('q', 'q', 'q'), func(id uint32) { t.Fatalf("%s: qqq lists %d", when, id) })
	}
	check("restored")
	for round := range 6 {
		for range 150 {
			doc := uint32(rng.IntN(600))
			if rng.IntN(2) == 0 {
				y.Delete(doc)
			} else {
				y.Add(doc, text())
			}
		}
		check(fmt.Sprintf("after round %d", round))
	}
}

// TestRestoredConcurrentFirstQueries: queries run side by side (under the
// caller's read lock) on a fresh restore, where the first ones build the
// trigram table; each still finds what the index built by Add finds (run
// with -race to check the build's locking).
func TestRestoredConcurrentFirstQueries(t *testing.T) {
	x := sampleIndex()
	b, _ := x.MarshalBinary()
	queries := []string{"stagin key", "9f3c2a", "cofee", "prefers", "fixing", "vault/keys"}
	want := make([][]Hit, len(queries))
	for i, q := range queries {
		r := x.Search(q)
		want[i] = r.Top(r.Len())
	}
	for range 20 {
		y := New()
		if err := y.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan string, len(queries))
		for i, q := range queries {
			wg.Go(func() {
				r := y.Search(q)
				if got := r.Top(r.Len()); !slices.EqualFunc(got, want[i], sameHit) {
					errs <- fmt.Sprintf("%q: %v, want %v", q, got, want[i])
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
	}
}
