package fts

import (
	"math"
	"slices"
)

// The literal channel's two orders (compareEvidence for the pool,
// compareRank for the rank) are read at 100,000 records over thousands
// of hits per query: Top selects a pool from all of them and FindAll
// counts, for every hit, the candidates it precedes. Both compare whole
// 40-byte hits field by field, with a float comparison per field. Here
// each hit is reduced to integer keys that order exactly as those
// comparisons do, so selecting and counting compare one or two uint64s
// instead, on a compact array.
//
// The keys are exact, not approximate: every p_lex is in (0, 1) and every
// BM25 is ≥ 0 (a sum of positive terms), and non-negative float64s order
// as their bit patterns do, with the sign bit free to carry All.

// keyedOrder selects the keyed Top and FindAll; the tests switch it off to
// compare them against the field-by-field comparisons (selectTop and a
// bisection over compareRank), which they must equal hit for hit.
var keyedOrder = true

// posBits is the bit pattern of a non-negative float64, which orders as
// the float does; -0 counts as 0, as the float comparisons have it.
func posBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

// allBit is All in a key's top bit: AND hits first in both orders.
func allBit(h *Hit) uint64 {
	if h.All {
		return 1 << 63
	}
	return 0
}

// rankKey orders as compareRank does down to BM25: a larger key ranks
// first, and equal keys fall back to p_lex and doc.
func rankKey(h *Hit) uint64 { return allBit(h) | posBits(h.BM25) }

// evEntry is one hit in the pool order (compareEvidence): AND then p_lex
// in k1, BM25 in k2, then the lower doc; at is the hit's index.
type evEntry struct {
	k1, k2 uint64
	doc    uint32
	at     uint32
}

func evEntryOf(h *Hit, at int) evEntry {
	return evEntry{k1: allBit(h) | posBits(h.PLex), k2: posBits(h.BM25), doc: h.Doc, at: uint32(at)}
}

// evBefore reports whether a comes first in the pool order.
func evBefore(a, b *evEntry) bool {
	if a.k1 != b.k1 {
		return a.k1 > b.k1
	}
	if a.k2 != b.k2 {
		return a.k2 > b.k2
	}
	return a.doc < b.doc
}

func evCompare(a, b evEntry) int {
	switch {
	case evBefore(&a, &b):
		return -1
	case evBefore(&b, &a):
		return 1
	}
	return 0
}

// topKeyed moves the n hits first in the pool order to the front of
// r.hits, in that order (n ≤ len(r.hits)); the rest keep no order.
func (r *Result) topKeyed(n int) {
	hits := r.hits
	sc := r.x.getScratch()
	defer r.x.scratch.Put(sc)
	var es []evEntry
	if n*heapShare <= len(hits) {
		es = selectHeap(sc.entries[:0], hits, n)
	} else {
		es = slices.Grow(sc.entries[:0], len(hits))[:len(hits)]
		for i := range hits {
			es[i] = evEntryOf(&hits[i], i)
		}
		if n < len(es) {
			selectEntries(es, n)
		}
	}
	defer func() { sc.entries = es[:0] }()
	slices.SortFunc(es[:n], evCompare)
	// The n chosen hits, in order, aside; then the front's other hits
	// into the places the chosen ones leave behind it.
	chosen := slices.Grow(sc.chosen[:0], n)[:n]
	defer func() { sc.chosen = chosen[:0] }()
	for j := range chosen {
		chosen[j] = hits[es[j].at]
	}
	if n < len(hits) {
		gen := sc.nextGen()
		for _, e := range es[:n] {
			sc.stamp[hits[e.at].slot] = gen
		}
		k := n
		for j := range n {
			if sc.stamp[hits[j].slot] == gen {
				continue
			}
			for sc.stamp[hits[k].slot] != gen {
				k++
			}
			hits[k] = hits[j]
			k++
		}
	}
	copy(hits, chosen)
	r.sorted = n
}

// heapShare: a pool of at most this share of the hits is selected with a
// heap (selectHeap) rather than by quickselect over every hit's entry;
// the tests set it to compare the two.
var heapShare = 8

// selectHeap appends to es (empty) the entries of the n hits first in
// the pool order (n ≤ len(hits)), in no order: a heap of the n best so
// far, its last in the order at the root, which most hits of a large
// answer do not pass, so a hit costs its keys and a comparison. The
// pool order is total (the doc decides last), so the n chosen are those
// quickselect chooses.
func selectHeap(es []evEntry, hits []Hit, n int) []evEntry {
	if n == 0 {
		return es
	}
	for i := range n {
		es = append(es, evEntryOf(&hits[i], i))
	}
	// The root is the entry that comes last: a heap on "after".
	for i := n/2 - 1; i >= 0; i-- {
		siftLast(es, i)
	}
	for i := n; i < len(hits); i++ {
		e := evEntryOf(&hits[i], i)
		if evBefore(&e, &es[0]) {
			es[0] = e
			siftLast(es, 0)
		}
	}
	return es
}

// siftLast restores the heap below i: every entry comes after (or is)
// its children in the pool order.
func siftLast(es []evEntry, i int) {
	for {
		c := 2*i + 1
		if c >= len(es) {
			return
		}
		if c+1 < len(es) && evBefore(&es[c], &es[c+1]) {
			c++
		}
		if !evBefore(&es[i], &es[c]) {
			return
		}
		es[i], es[c] = es[c], es[i]
		i = c
	}
}

// selectEntries moves the n entries first in the pool order (in any
// order) to the front of es: quickselect, as selectTop.
func selectEntries(es []evEntry, n int) {
	lo, hi := 0, len(es)-1
	for lo < hi {
		p := es[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for evBefore(&es[i], &p) {
				i++
			}
			for evBefore(&p, &es[j]) {
				j--
			}
			if i <= j {
				es[i], es[j] = es[j], es[i]
				i++
				j--
			}
		}
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// countPrecedingKeyed fills before[k] with the number of hits that precede
// asked[k] but not asked[k-1] in the rank order, as FindAll's bisection
// over compareRank does: asked is sorted in that order.
func (r *Result) countPrecedingKeyed(asked []Hit, before []int, sc *searchScratch) {
	keys := slices.Grow(sc.keys[:0], len(asked))[:len(asked)]
	defer func() { sc.keys = keys[:0] }()
	for k := range asked {
		keys[k] = rankKey(&asked[k])
	}
	if len(r.hits) < splitCount {
		countHitsBefore(r.hits, asked, keys, before)
		return
	}
	// The counts of two halves of the hits add up: the upper half is
	// counted on another core, into its own array.
	mid := len(r.hits) / 2
	upper := slices.Grow(sc.upper[:0], len(before))[:len(before)]
	clear(upper)
	defer func() { sc.upper = upper[:0] }()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		countHitsBefore(r.hits[mid:], asked, keys, upper)
	}()
	countHitsBefore(r.hits[:mid], asked, keys, before)
	if p := <-done; p != nil {
		panic(p)
	}
	for k, n := range upper {
		before[k] += n
	}
}

// splitCount is how many hits FindAll must count over for it to count the
// two halves on two cores (some 0.3 ms of work at 20,000); the tests set
// it to 0 to compare the split count with the single one.
var splitCount = 20_000

// keyBuckets narrows the bisection of a rank key among the asked keys
// (sorted in decreasing order) to the few in its bucket: the keys of AND
// hits and those of the others each span their range cut in
// bucketCount buckets, and at[b] is where the asked keys of bucket b and
// below start. Records of one template tie on BM25, so a bucket may hold
// many keys; they are bisected.
type keyBuckets struct {
	split int // asked[:split] are AND hits
	// per region (0: AND hits, 1: the others): the smallest key, the
	// shift of a key's offset from it to its bucket, and at.
	min   [2]uint64
	max   [2]uint64
	shift [2]uint
	at    [2][bucketCount + 1]int32
}

// bucketCount is how many buckets each region of the keys is cut in.
const bucketCount = 1024

// set builds the buckets of keys (decreasing).
func (kb *keyBuckets) set(keys []uint64) {
	kb.split = 0
	for kb.split < len(keys) && keys[kb.split]&(1<<63) != 0 {
		kb.split++
	}
	for g, region := range [2][2]int{{0, kb.split}, {kb.split, len(keys)}} {
		from, to := region[0], region[1]
		at := &kb.at[g]
		if from == to {
			kb.min[g], kb.max[g], kb.shift[g] = 1, 0, 0 // empty: every key is outside
			for b := range at {
				at[b] = int32(from)
			}
			continue
		}
		lo, hi := keys[to-1], keys[from]
		shift := uint(0)
		for (hi-lo)>>shift >= bucketCount {
			shift++
		}
		kb.min[g], kb.max[g], kb.shift[g] = lo, hi, shift
		// at[b]: the first key whose bucket is at most b... counted from
		// the top: keys of buckets > b come first.
		k := to
		for b := range bucketCount + 1 {
			// at[b] = from + #keys with bucket ≥ b, filled from b = 0
			// (every key) upwards.
			for k > from && (keys[k-1]-lo)>>shift < uint64(b) {
				k--
			}
			at[b] = int32(k)
		}
	}
}

// larger returns how many of keys are larger than key.
func (kb *keyBuckets) larger(keys []uint64, key uint64) int {
	g := 1
	if key&(1<<63) != 0 {
		g = 0
	}
	switch {
	case key > kb.max[g]:
		if g == 0 {
			return 0
		}
		return kb.split
	case key < kb.min[g]:
		if g == 0 {
			return kb.split
		}
		return len(keys)
	}
	b := (key - kb.min[g]) >> kb.shift[g]
	// The bucket's keys are keys[at[b+1]:at[b]]: bisect them.
	lo, hi := int(kb.at[g][b+1]), int(kb.at[g][b])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if keys[mid] > key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// countHitsBefore adds to before[k] the hits that precede asked[k] but not
// asked[k-1] in the rank order (keys are asked's rank keys).
func countHitsBefore(hits, asked []Hit, keys []uint64, before []int) {
	var kb keyBuckets
	kb.set(keys)
	for i := range hits {
		h := &hits[i]
		key := rankKey(h)
		// lo: the asked hits with a larger key, which all precede h
		// (keys do not increase along asked).
		lo := kb.larger(keys, key)
		// Equal keys (many records of one template tie on BM25): p_lex
		// and doc decide, as in compareRank, by bisecting the run.
		if lo < len(keys) && keys[lo] == key {
			end, hi := lo+1, len(keys)
			for end < hi {
				mid := int(uint(end+hi) >> 1)
				if keys[mid] == key {
					end = mid + 1
				} else {
					hi = mid
				}
			}
			for lo < end {
				mid := int(uint(lo+end) >> 1)
				if rankBefore(&asked[mid], h) {
					lo = mid + 1
				} else {
					end = mid
				}
			}
		}
		if lo < len(asked) && asked[lo].Doc == h.Doc {
			lo++
		}
		before[lo]++
	}
}
