package vaultfmt

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestLiveTableLazy: a table that logs a replay's changes and builds its
// map on the first read holds what a map written change by change holds,
// whatever the changes, with more written after the build and after a
// reset.
func TestLiveTableLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		want := map[ID]loc{}
		lazy := newReplayLive(rng.IntN(8))
		var off int64
		step := func() {
			id := testID(rng.IntN(40))
			if rng.IntN(3) == 0 {
				delete(want, id)
				lazy.logDelete(id)
				return
			}
			// Often the frame of the change before (a payload frame's
			// items share their offset).
			if rng.IntN(2) == 0 {
				off = rng.Int64N(1 << 20)
			}
			l := loc{off: off, idx: uint32(rng.IntN(9)), kind: Kind(rng.IntN(4))}
			want[id] = l
			lazy.logPut(id, l)
		}
		if round%5 == 0 {
			for range rng.IntN(30) {
				step()
			}
			lazy.reset()
			clear(want)
		}
		for range rng.IntN(120) {
			step()
		}
		if got := lazy.items(); !maps.Equal(got, want) {
			t.Fatalf("round %d: built %v, want %v", round, got, want)
		}
		for range rng.IntN(30) {
			step()
		}
		if got := lazy.items(); !maps.Equal(got, want) || lazy.lazy {
			t.Fatalf("round %d: after more changes %v, want %v (lazy %v)", round, got, want, lazy.lazy)
		}
	}
	var closed *liveTable
	if closed.items() != nil {
		t.Fatal("a closed vault's table is not empty")
	}
}

// TestReopenLiveItemsCompact: after an open that left the live-item table
// lazy (payload and journal, puts, replacements and deletes), the count
// is right, a write after it lands, and a compaction keeps exactly the
// live items.
func TestReopenLiveItemsCompact(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"), put(3, "three"), put(4, "four"))
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, c, del(2), put(3, "three, again"), put(5, "five"))
	v.Close()
	v2, c2 := reopen(t, path)
	mustAppend(t, v2, c2, del(4), put(6, "six"))
	if n := v2.Stats().LiveItems; n != 4 {
		t.Fatalf("live items %d, want 4 (1, 3, 5, 6)", n)
	}
	if err := v2.Compact(); err != nil {
		t.Fatal(err)
	}
	v2.Close()
	_, c3 := reopen(t, path)
	sameItems(t, c3, c2)
	if len(c3.items) != 4 {
		t.Fatalf("%d items after compaction, want 4", len(c3.items))
	}
}
