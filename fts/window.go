package fts

import (
	"math"
	"slices"

	"github.com/compartment/compartment/rank"
	"github.com/compartment/compartment/simd"
)

// The windowed read of the postings.
//
// A query's answer records are those holding a seed term (see seedTerms):
// the seed terms' postings decide which records are candidates (pass 0)
// and the other terms' postings only update those (pass 1). Each record
// accumulates its matched-term mask, its Σ weight·I(t) and its BM25 in a
// slot-indexed accumulator (32 bytes a record), and at a million records
// reading list after list through those accumulators, then the records
// touched to collect the hits, missed the cache once a posting: the
// accumulators of a million records are 32 MB, and every list sweeps
// them all.
//
// So the slots are read in windows of windowSlots: for each window, every
// seed list's postings in it, then every other term's, then the hits of
// the window's records, while its accumulators (half a megabyte) are
// still in the core's cache. Each list keeps its place from one window to
// the next, so every posting is still read once.
//
// Each record receives the same additions in the same order as in one
// pass over whole lists (pass 0 then pass 1, terms in query order, each
// term's expansions best first), so every hit's p_lex and BM25 are bit
// for bit those of the exhaustive read (accumulateExhaustive and collect,
// which the tests compare against). The hits are then put in the order
// that read gives them (list by list, each list in slot order, a record
// where its first list reaches it), which Holding and the pool's
// selection follow: the windows only change when a record is read, not
// the answer.

// windowSlots is how many slots a window spans, a multiple of the bitmap
// word (64); the tests make it small so that small indexes span several.
var windowSlots uint32 = 1 << 14

// infoAhead is the block of postings whose records' lengths the read asks
// for at once, a block ahead.
const infoAhead = 32

// denseShare: a list holding more than one record in this many is read
// without asking for the lengths ahead (8 share a cache line).
const denseShare = 4

// readList is one posting list a query reads, with what crediting one of
// its records adds.
type readList struct {
	bit               uint64 // the query term's bit
	weight, info, idf float64
	slots             []uint32
	tfs               []uint16
}

// readTerm is one pass-1 term: its lists are rest[from:to]; missing, it
// has none (no record holds it, nor any expansion).
type readTerm struct {
	from, to int
	bit      uint64
	missing  bool
}

// readPlan is a query's lists, in the order a record receives them.
type readPlan struct {
	seeds            []readList // pass 0
	rest             []readList // pass 1
	terms            []readTerm // pass 1, in query order
	all, informative uint64
	conjunctive      bool // no informative term: an answer holds every term
	avgWords         float64
}

// windowPart is one half's working lists in a (possibly split) read.
type windowPart struct {
	pos, restPos  []int // each list's next posting
	touched, live []uint32
	runs          []int // the current window: len(touched) after each seed list
	hits          []Hit
	// chunks has, for each window and seed list, how many hits the
	// records that list reached first in that window gave.
	chunks, offs []int32
	// acc and held are the accumulators and the bitmap of candidates of
	// the window read (slot s at s minus the window's first slot): a
	// window's worth, reused window after window, so they stay in cache.
	acc    []accum
	held   []uint64
	anyAll bool
}

// plan lists the postings the query's active terms read.
func (x *Index) plan(r *Result, p *readPlan) {
	n := float64(x.Len())
	p.avgWords = max(float64(x.words)/n, 1)
	p.seeds, p.rest, p.terms = p.seeds[:0], p.rest[:0], p.terms[:0]
	p.all, p.informative = 0, 0
	p.conjunctive = !anyInformative(r)
	seeds := seedTerms(r)
	for i, t := range r.Terms {
		if !t.Active {
			break
		}
		bit := uint64(1) << i
		p.all |= bit
		if t.Informative {
			p.informative |= bit
		}
		seed := seeds&bit != 0
		lists := t.Expansions
		if len(lists) == 0 {
			id, ok := x.lookup(t.Text)
			if !ok {
				if !seed {
					p.terms = append(p.terms, readTerm{bit: bit, missing: true})
				}
				continue
			}
			lists = []Expansion{{Weight: 1, id: id}}
		}
		idf := math.Log(1 + (n-float64(t.DF)+0.5)/(float64(t.DF)+0.5))
		from := len(p.rest)
		for _, e := range lists {
			pt := &x.terms[e.id]
			l := readList{bit: bit, weight: e.Weight, info: t.Info, idf: idf, slots: pt.slots, tfs: pt.tfs}
			if seed {
				p.seeds = append(p.seeds, l)
			} else {
				p.rest = append(p.rest, l)
			}
		}
		if !seed {
			p.terms = append(p.terms, readTerm{from: from, to: len(p.rest), bit: bit})
		}
	}
}

// readWindows reads the postings of the active terms window by window
// and collects the hits (see above): the fast path of
// accumulateExhaustive and collect.
func (x *Index) readWindows(r *Result, sc *searchScratch) {
	p := &sc.plan
	x.plan(r, p)
	end := uint32(len(x.info))
	lo, hi := &sc.parts[0], &sc.parts[1]
	split := x.postingsRead(r) >= splitPostings && len(x.info) >= 2*splitAlign
	if !split {
		x.readPart(r, sc, lo, 0, end)
	} else {
		// Two halves of the slots, one on another core: they credit
		// disjoint accumulators and bitmap words (the split is a multiple
		// of 64), and the hits of the upper half's windows follow the
		// lower half's.
		mid := uint32(len(x.info)/2) &^ (splitAlign - 1)
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			x.readPart(r, sc, hi, mid, end)
		}()
		x.readPart(r, sc, lo, 0, mid)
		if p := <-done; p != nil {
			panic(p)
		}
	}
	// The hits go into a released result's hits when they fit.
	var dst []Hit
	if h, _ := x.hitPool.Get().(*[]Hit); h != nil {
		dst = (*h)[:0]
	}
	parts := []*windowPart{lo}
	if split {
		parts = append(parts, hi)
	}
	anyAll := lo.anyAll || (split && hi.anyAll)
	if nl := len(p.seeds); !split && (nl <= 1 || len(lo.chunks) <= nl) {
		// One list or one window: the hits are in order already. The
		// part's buffer becomes the result's, the released one the
		// part's.
		r.hits, lo.hits = lo.hits, dst
	} else {
		total := 0
		for _, part := range parts {
			total += len(part.hits)
			// offs: where each chunk starts in the part's hits.
			part.offs = slices.Grow(part.offs[:0], len(part.chunks))[:len(part.chunks)]
			at := 0
			for i, c := range part.chunks {
				part.offs[i] = int32(at)
				at += int(c)
			}
		}
		dst = slices.Grow(dst, total)
		for k := range nl {
			for _, part := range parts {
				for w := k; w < len(part.chunks); w += nl {
					off := int(part.offs[w])
					dst = append(dst, part.hits[off:off+int(part.chunks[w])]...)
				}
			}
		}
		r.hits = dst
	}
	switch {
	case len(r.hits) == 0:
		r.Mode = ModeNone
	case anyAll:
		r.Mode = ModeAND
	case p.informative != 0:
		r.Mode = ModeOR
	}
}

// readPart reads the slots [lo, hi) window by window into part (its
// hits, and their chunks by window and seed list). lo is a multiple of
// 64.
func (x *Index) readPart(r *Result, sc *searchScratch, part *windowPart, lo, hi uint32) {
	p := &sc.plan
	part.pos = slices.Grow(part.pos[:0], len(p.seeds))[:len(p.seeds)]
	for k, l := range p.seeds {
		part.pos[k], _ = slices.BinarySearch(l.slots, lo)
	}
	part.restPos = slices.Grow(part.restPos[:0], len(p.rest))[:len(p.rest)]
	for k, l := range p.rest {
		part.restPos[k], _ = slices.BinarySearch(l.slots, lo)
	}
	part.hits, part.chunks, part.anyAll = part.hits[:0], part.chunks[:0], false
	if len(p.seeds) == 0 {
		return
	}
	touched, live, runs := part.touched[:0], part.live[:0], part.runs[:0]
	defer func() { part.touched, part.live, part.runs = touched[:0], live[:0], runs[:0] }()
	avgWords := p.avgWords
	if len(part.acc) < int(windowSlots) {
		part.acc = make([]accum, windowSlots)
		part.held = make([]uint64, windowSlots/64)
	}
	acc, held := part.acc, part.held
	for wlo := lo; wlo < hi; {
		whi := hi
		if hi-wlo > windowSlots {
			whi = wlo + windowSlots
		}
		// Pass 0: the seed lists make the window's candidates.
		touched, runs = touched[:0], runs[:0]
		for k := range p.seeds {
			l := &p.seeds[k]
			j := part.pos[k]
			// A list holding a record in every few has the lengths read
			// in order, which the processor streams itself.
			sparse := len(l.slots)*denseShare < len(x.info)
			for ; j < len(l.slots); j++ {
				if sparse && j%infoAhead == 0 {
					// A list's records are scattered over the records'
					// lengths (at a million records, a cache miss
					// each): ask for the next block's while this one
					// is read.
					if next := j + infoAhead; next < len(l.slots) {
						simd.PrefetchIndexed(x.info, l.slots[next:min(next+infoAhead, len(l.slots))])
					}
				}
				s := l.slots[j]
				if s >= whi {
					break
				}
				a := &acc[s-wlo]
				if a.mask&l.bit != 0 {
					continue
				}
				if a.mask == 0 {
					touched = append(touched, s)
					held[(s-wlo)>>6] |= 1 << (s & 63)
					// The record's BM25 length norm, once per record
					// rather than once per posting.
					a.norm = bm25K1 * (1 - bm25B + bm25B*float64(x.info[s].words)/avgWords)
				}
				a.mask |= l.bit
				a.num += l.weight * l.info
				tf64 := float64(l.tfs[j])
				a.bm += l.weight * l.idf * tf64 * (bm25K1 + 1) / (tf64 + a.norm)
			}
			part.pos[k] = j
			runs = append(runs, len(touched))
		}
		// Pass 1: the other terms' postings update the candidates.
		if len(p.terms) > 0 {
			live = x.readRest(sc, part, live, touched, wlo, whi)
		}
		// The window's hits, while its accumulators are in cache.
		prev, base := 0, len(part.hits)
		for _, end := range runs {
			for _, s := range touched[prev:end] {
				a := acc[s-wlo]
				acc[s-wlo] = accum{}
				held[(s-wlo)>>6] = 0
				if a.mask == p.all {
					part.anyAll = true
				} else if a.mask&p.informative == 0 {
					continue
				}
				if pl := rank.PLex(a.num, r.TotalInfo); pl > 0 {
					part.hits = append(part.hits, Hit{Doc: x.info[s].doc, slot: s, PLex: pl, BM25: a.bm, Matched: a.mask, All: a.mask == p.all})
				}
			}
			part.chunks = append(part.chunks, int32(len(part.hits)-base))
			prev, base = end, len(part.hits)
		}
		wlo = whi
	}
}

// readRest is pass 1 over one window (its slots below whi): each
// non-seed term's postings credit the window's candidates (touched). A
// long list (a common word's) is not read through: each candidate is
// sought in it (see [postingCursor]), so the work follows the
// candidates, not the records holding "the". When no term is
// informative, a candidate missing one term is dropped from the later
// seeks: it can no longer hold every term.
func (x *Index) readRest(sc *searchScratch, part *windowPart, live, touched []uint32, wlo, whi uint32) []uint32 {
	p := &sc.plan
	acc, held := part.acc, part.held
	live = append(live[:0], touched...)
	sorted := false // live is sorted (needed to seek, done at the first seek)
	for _, t := range p.terms {
		if t.missing {
			if p.conjunctive {
				live = live[:0]
			}
			continue
		}
		for m := t.from; m < t.to; m++ {
			l := &p.rest[m]
			c := postingCursor{slots: l.slots, pos: part.restPos[m]}
			end, _ := c.seek(whi)
			slots, tfs := l.slots[part.restPos[m]:end], l.tfs[part.restPos[m]:end]
			part.restPos[m] = end
			if len(live)*seekRatio > len(slots) {
				// Most of the window's list is candidates: read it
				// through, testing each entry in the bitmap of
				// candidates before its accumulator.
				for j, s := range slots {
					if held[(s-wlo)>>6]&(1<<(s&63)) == 0 {
						continue
					}
					if a := &acc[s-wlo]; a.mask&l.bit == 0 {
						credit(a, l, tfs[j])
					}
				}
				continue
			}
			if !sorted {
				slices.Sort(live)
				sorted = true
			}
			cur := postingCursor{slots: slots}
			for _, s := range live {
				j, ok := cur.seek(s)
				if !ok {
					if cur.done() {
						break
					}
					continue
				}
				if a := &acc[s-wlo]; a.mask&l.bit == 0 {
					credit(a, l, tfs[j])
				}
			}
		}
		if p.conjunctive {
			kept := live[:0]
			for _, s := range live {
				if acc[s-wlo].mask&t.bit != 0 {
					kept = append(kept, s)
				}
			}
			live = kept
		}
	}
	return live
}

// credit adds one posting of l (term frequency tf) to a record met
// before.
func credit(a *accum, l *readList, tf uint16) {
	a.mask |= l.bit
	a.num += l.weight * l.info
	tf64 := float64(tf)
	a.bm += l.weight * l.idf * tf64 * (bm25K1 + 1) / (tf64 + a.norm)
}

// splitPostings is how many postings a query's active terms must hold
// for the read to take the two halves of the slots on two cores: about
// a millisecond's work, twice what starting and joining costs at worst;
// the tests set it to 0 to compare the split read with the single one.
var splitPostings = 150_000

// splitAlign: the halves split at a multiple of the bitmap's word.
const splitAlign = 64

// postingsRead is how many postings the active terms' lists hold.
func (x *Index) postingsRead(r *Result) int {
	n := 0
	for _, t := range r.Terms {
		if !t.Active {
			break
		}
		if len(t.Expansions) == 0 {
			if id, ok := x.lookup(t.Text); ok {
				n += len(x.terms[id].slots)
			}
			continue
		}
		for _, e := range t.Expansions {
			n += len(x.terms[e.id].slots)
		}
	}
	return n
}
