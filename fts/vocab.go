package fts

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
)

// A restored index's vocabulary has two parts. The terms the snapshot
// held (its base: ids 0 to n−1, ascending bytewise, their texts one
// string) are indexed by trigram only when a query first needs it, into
// flat arrays built straight from that string, and by prefix not at all:
// the base terms sharing a prefix are a run of ids, found by bisection.
// The terms added since (and every term of an index built by Add) are in
// the fresh maps, kept by Add and Delete. A base term that loses its last
// posting is marked gone (its id may come back as a fresh term). Every
// live term is in exactly one part, so a lookup is the ascending merge of
// the base's live ids and the fresh ones: the sorted list one map over
// the whole vocabulary held, id for id.

// baseVocab is the restored vocabulary, which never changes.
type baseVocab struct {
	texts string   // every term, in id order
	ends  []uint32 // term i is texts[ends[i-1]:ends[i]] (ends[-1] = 0)
	// table finds a term's id by its text: open addressing over
	// maphash, holding id+1 (0: empty), at most half full. Unlike a
	// map[string]uint32 it holds no pointers and costs 8 bytes a term,
	// not about 40, and filling it is a fifth of the restore's CPU less.
	table []uint32
	seed  maphash.Seed
}

func newBaseVocab(texts string, ends []uint32) baseVocab {
	b := baseVocab{texts: texts, ends: ends, seed: maphash.MakeSeed()}
	if len(ends) == 0 {
		return b
	}
	b.table = make([]uint32, 1<<bits.Len(uint(2*len(ends)-1)))
	mask := uint64(len(b.table) - 1)
	for id := range ends {
		i := maphash.String(b.seed, b.text(uint32(id))) & mask
		for b.table[i] != 0 {
			i = (i + 1) & mask
		}
		b.table[i] = uint32(id) + 1
	}
	return b
}

// find returns the id of the base term text (live or gone).
func (b *baseVocab) find(text string) (uint32, bool) {
	if len(b.table) == 0 {
		return 0, false
	}
	mask := uint64(len(b.table) - 1)
	for i := maphash.String(b.seed, text) & mask; b.table[i] != 0; i = (i + 1) & mask {
		if id := b.table[i] - 1; b.text(id) == text {
			return id, true
		}
	}
	return 0, false
}

// findBytes is find for a term in bytes.
func (b *baseVocab) findBytes(text []byte) (uint32, bool) {
	if len(b.table) == 0 {
		return 0, false
	}
	mask := uint64(len(b.table) - 1)
	for i := maphash.Bytes(b.seed, text) & mask; b.table[i] != 0; i = (i + 1) & mask {
		if id := b.table[i] - 1; b.text(id) == string(text) {
			return id, true
		}
	}
	return 0, false
}

// lookup returns the id of the live term text.
func (x *Index) lookup(text string) (uint32, bool) {
	if id, ok := x.vocab[text]; ok {
		return id, true
	}
	if id, ok := x.base.find(text); ok && x.isBase(id) {
		return id, true
	}
	return 0, false
}

// lookupBytes is lookup for a term in bytes (borrowed from a text).
func (x *Index) lookupBytes(text []byte) (uint32, bool) {
	if id, ok := x.vocab[string(text)]; ok {
		return id, true
	}
	if id, ok := x.base.findBytes(text); ok && x.isBase(id) {
		return id, true
	}
	return 0, false
}

func (b *baseVocab) len() int { return len(b.ends) }

func (b *baseVocab) text(id uint32) string {
	start := uint32(0)
	if id > 0 {
		start = b.ends[id-1]
	}
	return b.texts[start:b.ends[id]]
}

// isBase reports whether id is still the base term it was restored as.
func (x *Index) isBase(id uint32) bool {
	return int(id) < x.base.len() && x.gone[id/64]&(1<<(id%64)) == 0
}

// prefixed calls fn with the id of every live term whose first
// MinVariantPrefix runes are key, ascending.
func (x *Index) prefixed(key string, fn func(id uint32)) {
	fresh := x.fresh.prefixes[key]
	n := x.base.len()
	for i := x.baseSearch(key); i < n && strings.HasPrefix(x.base.text(uint32(i)), key); i++ {
		fresh = x.mergeBase(fresh, uint32(i), fn)
	}
	for _, f := range fresh {
		fn(f)
	}
}

// mergeBase calls fn with the fresh ids below base id b, then with b if
// its term is still live, and returns the fresh ids left: one step of
// merging a fresh list into an ascending walk of base ids.
func (x *Index) mergeBase(fresh []uint32, b uint32, fn func(id uint32)) []uint32 {
	for len(fresh) > 0 && fresh[0] < b {
		fn(fresh[0])
		fresh = fresh[1:]
	}
	if x.isBase(b) {
		fn(b)
	}
	return fresh
}

// baseSearch returns the first base id whose text is ≥ key.
func (x *Index) baseSearch(key string) int {
	lo, hi := 0, x.base.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x.base.text(uint32(mid)) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// gramTable is the trigram index of the base vocabulary: for each padded
// trigram, the ascending ids of the base terms holding it, all in one
// array. Trigrams are found by open addressing, with no pointers for the
// garbage collector to follow.
type gramTable struct {
	slots []uint64 // hash table: trigram key + 1, or 0 for an empty slot
	index []uint32 // parallel to slots: the trigram's number
	offs  []uint32 // trigram k's ids are ids[offs[k]:offs[k+1]]
	ids   []uint32
	n     uint32 // trigrams numbered
}

// home is where key's probe starts (Fibonacci hashing).
func (g *gramTable) home(key uint64) int {
	return int((key * 0x9E3779B97F4A7C15) >> (64 - bits.TrailingZeros(uint(len(g.slots)))))
}

// lookup returns the base ids holding trigram key (live or gone).
func (g *gramTable) lookup(key uint64) []uint32 {
	if len(g.slots) == 0 {
		return nil
	}
	mask := len(g.slots) - 1
	for i := g.home(key); ; i = (i + 1) & mask {
		switch g.slots[i] {
		case key + 1:
			k := g.index[i]
			return g.ids[g.offs[k]:g.offs[k+1]]
		case 0:
			return nil
		}
	}
}

// number returns key's number, giving it the next one if it is new.
func (g *gramTable) number(key uint64) uint32 {
	if 2*(int(g.n)+1) > len(g.slots) {
		g.grow()
	}
	mask := len(g.slots) - 1
	for i := g.home(key); ; i = (i + 1) & mask {
		switch g.slots[i] {
		case key + 1:
			return g.index[i]
		case 0:
			g.slots[i], g.index[i] = key+1, g.n
			g.n++
			return g.index[i]
		}
	}
}

// grow doubles the table (from 1,024 slots).
func (g *gramTable) grow() {
	old, oldIndex := g.slots, g.index
	size := max(2*len(old), 1024)
	g.slots, g.index = make([]uint64, size), make([]uint32, size)
	mask := size - 1
	for j, k := range old {
		if k == 0 {
			continue
		}
		i := g.home(k - 1)
		for g.slots[i] != 0 {
			i = (i + 1) & mask
		}
		g.slots[i], g.index[i] = k, oldIndex[j]
	}
}

// buildGramTable indexes the base vocabulary by trigram: one pass
// numbers each term's trigrams and counts the terms of each, a second
// places every term's id in the lists of its trigrams (in id order, so
// each list ascends).
func buildGramTable(b *baseVocab) *gramTable {
	g := &gramTable{}
	var keys []uint64
	var count []uint32
	nums := make([]uint32, 0, len(b.texts)) // every term's trigram numbers, in id order
	ends := make([]uint32, b.len())         // term id's numbers end at nums[ends[id]]
	for id := range b.len() {
		keys = appendTermGrams(keys[:0], b.text(uint32(id)))
		for _, k := range keys {
			n := g.number(k)
			if int(n) == len(count) {
				count = append(count, 0)
			}
			count[n]++
			nums = append(nums, n)
		}
		ends[id] = uint32(len(nums))
	}
	g.offs = make([]uint32, g.n+1)
	for k, c := range count {
		g.offs[k+1] = g.offs[k] + c
	}
	g.ids = make([]uint32, len(nums))
	fill := count[:g.n]
	copy(fill, g.offs)
	start := uint32(0)
	for id, end := range ends {
		for _, n := range nums[start:end] {
			g.ids[fill[n]] = uint32(id)
			fill[n]++
		}
		start = end
	}
	return g
}

// appendTermGrams appends the distinct padded trigrams of text to keys,
// in no particular order: termGrams without its allocations.
func appendTermGrams(keys []uint64, text string) []uint64 {
	start := len(keys)
	p, q := rune(-1), padStart // the two runes before the next
	seen := 1
	for _, c := range text {
		if seen >= 2 {
			keys = append(keys, gramKey(p, q, c))
		}
		p, q = q, c
		seen++
	}
	if seen >= 2 {
		keys = append(keys, gramKey(p, q, padEnd))
	}
	own := keys[start:]
	if len(own) > 16 {
		slices.Sort(own)
		return keys[:start+len(slices.Compact(own))]
	}
	// A short term: drop repeats by comparing with the kept ones, which
	// costs less than sorting.
	kept := 0
	for _, k := range own {
		if !slices.Contains(own[:kept], k) {
			own[kept] = k
			kept++
		}
	}
	return keys[:start+kept]
}

// baseGrams returns the base trigram table, building it at the first
// call. Concurrent queries may call it: one builds, the others wait.
func (x *Index) baseGrams() *gramTable {
	if g := x.grams.Load(); g != nil {
		return g
	}
	x.gramsMu.Lock()
	defer x.gramsMu.Unlock()
	if g := x.grams.Load(); g != nil {
		return g
	}
	g := buildGramTable(&x.base)
	x.grams.Store(g)
	return g
}

// withGram calls fn with the id of every live term holding trigram key,
// ascending.
func (x *Index) withGram(key uint64, fn func(id uint32)) {
	fresh := x.fresh.grams[key]
	if x.base.len() > 0 {
		for _, b := range x.baseGrams().lookup(key) {
			fresh = x.mergeBase(fresh, b, fn)
		}
	}
	for _, f := range fresh {
		fn(f)
	}
}
