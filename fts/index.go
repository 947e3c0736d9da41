package fts

import (
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Index is the literal index: a vocabulary of terms, each with the sorted
// postings (documents and term frequencies) of the records that hold it,
// and a trigram index over the vocabulary for fragments and misspellings.
//
// Documents are keyed by a caller-chosen uint32. Internally each live
// document occupies a dense slot, so a query accumulates into flat arrays;
// slots and term ids freed by Delete are reused.
//
// An Index is safe for concurrent Search calls; Add and Delete need
// exclusive access (the caller holds the lock, as for ann.Index).
type Index struct {
	vocab     map[string]uint32 // fresh term text → term id (base terms: base.find)
	baseLive  int               // base terms not gone
	terms     []term            // by term id
	freeTerms []uint32
	docs      docTable // document → slot
	// info is each slot's document and length: a query reads them for
	// every record it touches, and 8 bytes a slot in posting order stay
	// in cache (at 100,000 records reading them from a 40-byte slot was a
	// third of a query's accumulate). A free slot's info is zero.
	info []slotInfo
	// slotTerms are each slot's distinct term ids, in first-occurrence
	// order: what Delete must undo. A restored index leaves the lists of
	// its slots below unlinked out (nil, or past the end) until the first
	// Delete of one of them needs them (linkDocs): they repeat every
	// posting, and only a delete reads them.
	slotTerms [][]uint32
	unlinked  uint32
	freeSlots []uint32
	words     int64 // Σ words of live documents, for the BM25 average length

	// The vocabulary's trigram and prefix indexes, which only fragments,
	// misspellings and variants read (see vocab.go): fresh lists the
	// terms added since the restore (every term, without one), base is
	// the restored vocabulary, gone marks its terms dropped since, and
	// grams is its trigram table, built by the first query that needs it.
	fresh   *fuzzyIndex
	base    baseVocab
	gone    []uint64 // bit per base term
	grams   atomic.Pointer[gramTable]
	gramsMu sync.Mutex // held while building grams

	counts  []uint32  // Add's scratch, by term id: occurrences in the document
	seen    []uint32  // Add's scratch: the term ids counted
	scratch sync.Pool // *searchScratch, one per concurrent query
	hitPool sync.Pool // *[]Hit, a released Result's hits
}

// term is one vocabulary entry. slots is sorted; tfs is parallel to it.
// A restored index's terms share one backing array for their slots and
// one for their tfs (each slice capped, so a later append copies it out),
// and their texts are substrings of one string.
type term struct {
	text  string
	runes int // length in runes, for fuzzy matching
	slots []uint32
	tfs   []uint16
}

// slotInfo is what a query reads of a slot: its document and its BM25
// length (word tokens).
type slotInfo struct {
	doc, words uint32
}

// New returns an empty index.
func New() *Index {
	return &Index{vocab: map[string]uint32{}, fresh: newFuzzyIndex()}
}

// Len is the number of live documents, N in the term information.
func (x *Index) Len() int { return x.docs.n }

// Has reports whether doc is indexed.
func (x *Index) Has(doc uint32) bool {
	_, ok := x.docs.get(doc)
	return ok
}

// DF is the number of live documents holding term, after the same
// normalisation and case folding as indexed text. A term that is not one
// token (several words) reports 0.
func (x *Index) DF(termText string) int {
	toks := Tokens(termText)
	if len(toks) == 0 {
		return 0
	}
	if id, ok := x.lookup(toks[0]); ok {
		return len(x.terms[id].slots)
	}
	return 0
}

// VocabularySize is the number of distinct live terms.
func (x *Index) VocabularySize() int { return len(x.vocab) + x.baseLive }

// Add indexes text under doc, replacing what doc held before.
func (x *Index) Add(doc uint32, text string) {
	x.Delete(doc)
	ids := x.seen[:0]
	var words uint32
	tokenize(text, func(t []byte, kind int) {
		id, ok := x.lookupBytes(t)
		if !ok {
			id = x.newTerm(string(t))
		}
		if int(id) >= len(x.counts) {
			x.counts = append(x.counts, make([]uint32, len(x.terms)-len(x.counts))...)
		}
		if x.counts[id] == 0 {
			ids = append(ids, id)
		}
		x.counts[id]++
		if kind == kindWord {
			words++
		}
	})
	s := x.takeSlot()
	for _, id := range ids {
		x.post(id, s, x.counts[id])
		x.counts[id] = 0
	}
	x.seen = ids
	x.info[s] = slotInfo{doc: doc, words: words}
	x.setSlotTerms(s, slices.Clone(ids))
	x.docs.set(doc, s)
	x.words += int64(words)
}

// Delete removes doc from every posting list it is on; it reports whether
// doc was indexed. Document frequencies drop at once.
func (x *Index) Delete(doc uint32) bool {
	s, ok := x.docs.get(doc)
	if !ok {
		return false
	}
	if s < x.unlinked {
		x.linkDocs()
	}
	for _, id := range x.slotTerms[s] {
		x.unpost(id, s)
	}
	x.words -= int64(x.info[s].words)
	x.info[s] = slotInfo{}
	x.slotTerms[s] = nil
	x.freeSlots = append(x.freeSlots, s)
	x.docs.del(doc)
	return true
}

// newTerm adds text to the vocabulary (with no postings yet) and returns
// its id. The text is cloned: callers pass bytes borrowed from a document.
func (x *Index) newTerm(text string) uint32 {
	text = string([]byte(text))
	var id uint32
	if n := len(x.freeTerms); n > 0 {
		id = x.freeTerms[n-1]
		x.freeTerms = x.freeTerms[:n-1]
		x.terms[id] = term{text: text, runes: utf8.RuneCountInString(text)}
	} else {
		id = uint32(len(x.terms))
		x.terms = append(x.terms, term{text: text, runes: utf8.RuneCountInString(text)})
	}
	x.vocab[text] = id
	x.fresh.add(id, text)
	return id
}

// dropTerm forgets a term whose last posting went away.
func (x *Index) dropTerm(id uint32) {
	t := &x.terms[id]
	if x.isBase(id) {
		x.gone[id/64] |= 1 << (id % 64)
		x.baseLive--
	} else {
		x.fresh.remove(id, t.text)
		delete(x.vocab, t.text)
	}
	*t = term{}
	x.freeTerms = append(x.freeTerms, id)
}

func (x *Index) takeSlot() uint32 {
	if n := len(x.freeSlots); n > 0 {
		s := x.freeSlots[n-1]
		x.freeSlots = x.freeSlots[:n-1]
		return s
	}
	x.info = append(x.info, slotInfo{})
	return uint32(len(x.info) - 1)
}

// setSlotTerms records slot s's term list, growing slotTerms to reach it.
func (x *Index) setSlotTerms(s uint32, ids []uint32) {
	if n := len(x.slotTerms); int(s) >= n {
		x.slotTerms = slices.Grow(x.slotTerms, cap(x.info)-n)[:s+1]
		clear(x.slotTerms[n:s])
	}
	x.slotTerms[s] = ids
}

// post inserts slot s with count tf into term id's sorted postings.
func (x *Index) post(id, s, tf uint32) {
	t := &x.terms[id]
	tf16 := uint16(min(tf, 0xFFFF))
	if n := len(t.slots); n == 0 || t.slots[n-1] < s { // the usual case: a new slot
		t.slots = append(t.slots, s)
		t.tfs = append(t.tfs, tf16)
		return
	}
	i, _ := slices.BinarySearch(t.slots, s)
	t.slots = slices.Insert(t.slots, i, s)
	t.tfs = slices.Insert(t.tfs, i, tf16)
}

// unpost removes slot s from term id's postings, dropping the term when
// no document holds it any more.
func (x *Index) unpost(id, s uint32) {
	t := &x.terms[id]
	i, found := slices.BinarySearch(t.slots, s)
	if !found {
		return
	}
	t.slots = slices.Delete(t.slots, i, i+1)
	t.tfs = slices.Delete(t.tfs, i, i+1)
	if len(t.slots) == 0 {
		x.dropTerm(id)
	}
}
