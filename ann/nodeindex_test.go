package ann

import (
	"testing"

	"pgregory.net/rapid"
)

// TestNodeIndexIsAMap: any run of sets and deletes, with keys dense from 0,
// far above the count, and straddling the slice's end as it grows, leaves
// the index answering as a map does.
func TestNodeIndexIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var x nodeIndex
		want := map[uint64]uint32{}
		key := rapid.OneOf(rapid.Uint64Range(0, 300), rapid.Uint64Range(4000, 9000), rapid.Uint64())
		for i := range rapid.IntRange(0, 400).Draw(t, "ops") {
			k := key.Draw(t, "key")
			if rapid.IntRange(0, 3).Draw(t, "op") == 0 {
				_, had := want[k]
				if got := x.del(k); got != had {
					t.Fatalf("del(%d) = %v, want %v", k, got, had)
				}
				delete(want, k)
			} else {
				_, had := want[k]
				if got := x.set(k, uint32(i)); got == had {
					t.Fatalf("set(%d) new = %v, want %v", k, got, !had)
				}
				want[k] = uint32(i)
			}
			if x.len() != len(want) {
				t.Fatalf("len %d, want %d", x.len(), len(want))
			}
		}
		for k, id := range want {
			if got, ok := x.get(k); !ok || got != id {
				t.Fatalf("get(%d) = %d %v, want %d", k, got, ok, id)
			}
		}
		for range 50 {
			k := key.Draw(t, "probe")
			_, had := want[k]
			if _, ok := x.get(k); ok != had {
				t.Fatalf("get(%d) found %v, want %v", k, ok, had)
			}
		}
	})
}

// TestIndexKeysFindsTheDuplicate: a key listed twice is found, dense or not.
func TestIndexKeysFindsTheDuplicate(t *testing.T) {
	for _, keys := range [][]uint64{{0, 1, 2, 1}, {5, 1 << 40, 7, 1 << 40}, {3, 2, 1, 0}} {
		x, dup := indexKeys(keys)
		want := -1
		if keys[3] == keys[1] {
			want = 3
		}
		if dup != want {
			t.Fatalf("indexKeys(%v) duplicate at %d, want %d", keys, dup, want)
		}
		if want < 0 {
			for i, k := range keys {
				if s, ok := x.get(k); !ok || s != uint32(i) {
					t.Fatalf("indexKeys(%v): key %d at %d %v, want %d", keys, k, s, ok, i)
				}
			}
		}
	}
}
