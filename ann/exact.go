package ann

import "sync"

// Exact scores the query against every live vector: recall 1.0 (relative
// to its storage), one streaming pass over one contiguous matrix.
//
// Deleting a key zeroes its row and leaves a tombstone; once tombstones
// pass a quarter of the rows the matrix is compacted in place. Search,
// Len and Dim are safe to call concurrently; Add, Delete and Compact need
// exclusive access.
type Exact struct {
	st    store
	keys  []uint64 // key of each row
	alive []bool   // false for tombstones
	rowOf map[uint64]int
	dead  int
	opts  Options
	pool  sync.Pool // *exactScratch, one per concurrent search
}

// exactBlock is how many rows one batch kernel call scores: the scores
// stay in L1 while the heap consumes them.
const exactBlock = 1024

type exactScratch struct {
	q      query
	scores [exactBlock]float32
	dots   [exactBlock]int32
}

// NewExact returns an empty exact index for dim-long vectors; only
// opts.Storage matters to it (the rest is kept for serialisation).
func NewExact(dim int, opts Options) *Exact {
	opts = opts.withDefaults()
	return &Exact{st: newStore(dim, opts.Storage), rowOf: map[uint64]int{}, opts: opts}
}

// Dim returns the vector dimension.
func (e *Exact) Dim() int { return e.st.dim }

// Len returns the number of live keys.
func (e *Exact) Len() int { return len(e.rowOf) }

// Add stores vec under key, replacing the key's previous vector.
func (e *Exact) Add(key uint64, vec []float32) error {
	if err := checkVector(e.st.dim, vec); err != nil {
		return err
	}
	var q query
	e.st.prepare(vec, &q)
	e.addQuery(key, &q)
	return nil
}

// addQuery stores a vector already in the store's representation.
func (e *Exact) addQuery(key uint64, q *query) {
	if r, ok := e.rowOf[key]; ok {
		e.st.set(r, q)
		return
	}
	r := e.st.rows
	e.st.grow(r + 1)
	e.st.set(r, q)
	e.keys = append(e.keys, key)
	e.alive = append(e.alive, true)
	e.rowOf[key] = r
}

// Delete removes key and reports whether it was present.
func (e *Exact) Delete(key uint64) bool {
	r, ok := e.rowOf[key]
	if !ok {
		return false
	}
	delete(e.rowOf, key)
	e.alive[r] = false
	e.keys[r] = 0
	e.st.clear(r)
	e.dead++
	if e.dead >= 64 && e.dead*4 >= e.st.rows {
		e.Compact()
	}
	return true
}

// Tombstones returns the number of deleted rows not yet compacted away.
func (e *Exact) Tombstones() int { return e.dead }

// Compact moves live rows down over tombstones, keeping their order, and
// releases the tail.
func (e *Exact) Compact() {
	if e.dead == 0 {
		return
	}
	w := 0
	for r := 0; r < e.st.rows; r++ {
		if !e.alive[r] {
			continue
		}
		if w != r {
			e.st.move(w, r)
			e.keys[w] = e.keys[r]
			e.alive[w] = true
			e.rowOf[e.keys[w]] = w
		}
		w++
	}
	e.st.truncate(w)
	e.keys = e.keys[:w]
	e.alive = e.alive[:w]
	e.dead = 0
}

// Search returns the k live keys with the highest scores, best first.
func (e *Exact) Search(vec []float32, k int) []Hit {
	if k <= 0 || len(e.rowOf) == 0 || len(vec) != e.st.dim {
		return nil
	}
	s, _ := e.pool.Get().(*exactScratch)
	if s == nil {
		s = new(exactScratch)
	}
	defer e.pool.Put(s)
	e.st.prepare(vec, &s.q)
	top := topK{k: k, hits: make([]Hit, 0, min(k, len(e.rowOf)))}
	for from := 0; from < e.st.rows; from += exactBlock {
		to := min(from+exactBlock, e.st.rows)
		e.st.scoreRange(&s.q, from, to, s.scores[:], s.dots[:])
		e.offerBlock(&top, from, s.scores[:to-from])
	}
	return top.sorted()
}

func (e *Exact) offerBlock(top *topK, from int, scores []float32) {
	keys := e.keys[from : from+len(scores)]
	alive := e.alive[from : from+len(scores)]
	for i, sc := range scores {
		if top.admits(sc) && alive[i] {
			top.offer(Hit{Key: keys[i], Score: sc})
		}
	}
}

// each calls f for every live row in row order (serialisation, rebuilds).
func (e *Exact) each(f func(key uint64, row int)) {
	for r := 0; r < e.st.rows; r++ {
		if e.alive[r] {
			f(e.keys[r], r)
		}
	}
}
