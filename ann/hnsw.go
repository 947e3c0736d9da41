package ann

import (
	"math"
	"slices"
	"sync"

	"github.com/compartment/compartment/simd"
)

// HNSW is a hierarchical navigable small-world graph (Malkov & Yashunin),
// following hnswlib: layer 0 allows 2·M links per node and the layers
// above M, insertion searches efConstruction candidates per layer and
// keeps links chosen by the neighbour-selection heuristic, and search is
// bounded by ef with no early termination beyond the classic one (stop
// when the closest unexpanded candidate is farther than the ef-th result).
//
// Delete removes a node for good: every link to it is replaced by the
// best of the deleted node's own links (as hnswlib repairs a node on
// update), its row is zeroed and its slot reused, so a deleted key can
// never be returned and its vector does not linger.
//
// With F32 storage the graph keeps an int8 shadow of every vector (a
// quarter more memory): inserts walk and link the graph with int8
// distances, a quarter of the memory traffic, while Search scores in
// float32, so results and scores are exact. With Int8 storage the rows are
// int8 already and there is no shadow.
//
// Search, Len and Dim are safe to call concurrently; Add and Delete need
// exclusive access.
type HNSW struct {
	st       store
	shadow   store // int8 copy of F32 rows, which inserts link by
	opts     Options
	m, m0    int
	mult     float64
	keys     []uint64   // key of each slot
	levels   []int8     // top layer of each slot, −1 for a free slot
	l0       []uint32   // layer-0 links: per slot, count then m0 ids
	upper    [][]uint32 // layers 1..level: per layer, count then m ids
	nodeOf   nodeIndex
	free     []uint32
	entry    uint32
	maxLevel int // −1 when empty
	rng      uint64
	w        *searchScratch // the writer's scratch
	pool     sync.Pool      // *searchScratch, one per concurrent search
}

// NewHNSW returns an empty graph for dim-long vectors.
func NewHNSW(dim int, opts Options) *HNSW {
	opts = opts.withDefaults()
	h := &HNSW{
		st:       newStore(dim, opts.Storage),
		shadow:   newStore(dim, Int8),
		opts:     opts,
		maxLevel: -1,
		rng:      opts.Seed,
	}
	h.setM(opts.M)
	return h
}

func (h *HNSW) setM(m int) {
	h.m, h.m0 = m, 2*m
	h.mult = 1 / math.Log(float64(m))
}

// Dim returns the vector dimension.
func (h *HNSW) Dim() int { return h.st.dim }

// Len returns the number of live keys.
func (h *HNSW) Len() int { return h.nodeOf.len() }

func (h *HNSW) maxLinks(level int) int {
	if level == 0 {
		return h.m0
	}
	return h.m
}

// links returns the links of node id at level (aliasing the graph).
func (h *HNSW) links(id uint32, level int) []uint32 {
	b := h.linkBlock(id, level)
	return b[1 : 1+b[0]]
}

func (h *HNSW) linkBlock(id uint32, level int) []uint32 {
	if level == 0 {
		w := h.m0 + 1
		return h.l0[int(id)*w : int(id)*w+w]
	}
	w := h.m + 1
	return h.upper[id][(level-1)*w : level*w]
}

func (h *HNSW) setLinks(id uint32, level int, ids []uint32) {
	b := h.linkBlock(id, level)
	b[0] = uint32(len(ids))
	copy(b[1:], ids)
}

// splitmix64 is the level generator: tiny, seedable, and its whole state
// is one word, so it is serialised and a restored graph grows identically.
func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// randomLevel draws ⌊−ln(U)·mL⌋ with mL = 1/ln(M), as hnswlib does.
func (h *HNSW) randomLevel() int {
	u := float64(splitmix64(&h.rng)>>11) / (1 << 53)
	return min(int(-math.Log(1-u)*h.mult), maxLevelCap)
}

// searchScratch is everything one search needs, pooled so concurrent
// searches share nothing and allocate little.
type searchScratch struct {
	visited []uint16
	gen     uint16
	cands   minHeap
	top     maxHeap
	rows    []uint32
	scores  []float32
	dots    []int32
	q       query
	sel     []cand
	tmp     []cand
	krows   []uint32
	// The writer's buffers for linking a new node (insert, relink).
	chosen, rcands  []cand
	ids, rids, rout []uint32
	rscores         []float32
	rdots           []int32
}

func (h *HNSW) scratch() *searchScratch {
	s, _ := h.pool.Get().(*searchScratch)
	if s == nil {
		s = new(searchScratch)
	}
	return s
}

// reset starts a new visit generation; the visited array is cleared only
// when the 16-bit generation wraps.
func (s *searchScratch) reset(slots int) {
	if len(s.visited) < slots {
		s.visited = make([]uint16, slots+slots/4)
		s.gen = 0
	}
	s.gen++
	if s.gen == 0 {
		clear(s.visited)
		s.gen = 1
	}
}

// scoreLinks scores the unvisited links of id at level, marking them
// visited; the results are in s.rows and s.scores.
func (h *HNSW) scoreLinks(st *store, q *query, id uint32, level int, s *searchScratch) {
	s.rows = s.rows[:0]
	for _, nb := range h.links(id, level) {
		if s.visited[nb] != s.gen {
			s.visited[nb] = s.gen
			s.rows = append(s.rows, nb)
		}
	}
	s.scores = growSlice(s.scores, len(s.rows))
	s.dots = growSlice(s.dots, len(s.rows))
	st.scoreRows(q, s.rows, s.scores, s.dots)
}

// greedy walks down from the entry point to level stop+1, always moving to
// the closest link, and returns where it ends.
func (h *HNSW) greedy(st *store, q *query, stop int, s *searchScratch) cand {
	cur := cand{dist: -st.score(q, int(h.entry)), id: h.entry}
	for l := h.maxLevel; l > stop; l-- {
		for changed := true; changed; {
			changed = false
			rows := h.links(cur.id, l)
			s.scores = growSlice(s.scores, len(rows))
			s.dots = growSlice(s.dots, len(rows))
			st.scoreRows(q, rows, s.scores, s.dots)
			for i, nb := range rows {
				if c := (cand{dist: -s.scores[i], id: nb}); closer(c, cur) {
					cur, changed = c, true
				}
			}
		}
	}
	return cur
}

// searchLayer is hnswlib's searchBaseLayer: a best-first expansion from
// start that keeps the ef closest nodes of level in s.top.
func (h *HNSW) searchLayer(st *store, q *query, start cand, ef, level int, s *searchScratch) {
	s.reset(len(h.levels))
	s.cands, s.top = s.cands[:0], s.top[:0]
	s.visited[start.id] = s.gen
	s.cands.push(start)
	s.top.push(start)
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if len(s.top) >= ef && farther(c, s.top[0]) {
			break
		}
		if len(s.cands) > 0 {
			// The closest candidate left is most often the next one
			// expanded: its links load from memory while c's are scored
			// (hnswlib prefetches the same way).
			simd.PrefetchUint32s(h.linkBlock(s.cands[0].id, level))
		}
		h.scoreLinks(st, q, c.id, level, s)
		for i, nb := range s.rows {
			n := cand{dist: -s.scores[i], id: nb}
			if len(s.top) < ef || closer(n, s.top[0]) {
				s.cands.push(n)
				s.top.push(n)
				if len(s.top) > ef {
					s.top.pop()
				}
			}
		}
	}
}

// drainSorted empties s.top into s.sel, closest first. Sorting the heap's
// array is popping it in order (closer is a strict total order: ids are
// distinct) at half the cost: ef pops sift down log₂(ef) levels with two
// comparisons each.
func (s *searchScratch) drainSorted() []cand {
	s.sel = append(s.sel[:0], s.top...)
	s.top = s.top[:0]
	slices.SortFunc(s.sel, compareCands)
	return s.sel
}

// Search returns the k live keys closest to vec, best first.
func (h *HNSW) Search(vec []float32, k int) []Hit {
	if k <= 0 || h.nodeOf.len() == 0 || len(vec) != h.st.dim {
		return nil
	}
	s := h.scratch()
	defer h.pool.Put(s)
	h.st.prepare(vec, &s.q)
	ef := h.opts.EfSearch
	if ef == 0 {
		ef = max(64, 4*k)
	}
	ef = max(ef, k)
	start := h.greedy(&h.st, &s.q, 0, s)
	h.searchLayer(&h.st, &s.q, start, ef, 0, s)
	found := s.drainSorted()
	hits := make([]Hit, 0, min(k, len(found)))
	for _, c := range found[:min(k, len(found))] {
		hits = append(hits, Hit{Key: h.keys[c.id], Score: -c.dist})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return hits
}

// Add stores vec under key, replacing the key's previous vector.
func (h *HNSW) Add(key uint64, vec []float32) error {
	if err := checkVector(h.st.dim, vec); err != nil {
		return err
	}
	if h.w == nil {
		h.w = new(searchScratch)
	}
	var q query
	h.st.prepare(vec, &q)
	h.addQuery(key, &q)
	return nil
}

// addQuery inserts a vector already in the store's representation.
func (h *HNSW) addQuery(key uint64, q *query) {
	if h.w == nil {
		h.w = new(searchScratch)
	}
	h.Delete(key)
	id := h.allocSlot(h.randomLevel())
	h.keys[id] = key
	h.nodeOf.set(key, id)
	h.st.set(int(id), q)
	bq := q
	if h.st.storage == F32 {
		var sq query
		h.shadow.prepare(q.f32, &sq)
		h.shadow.set(int(id), &sq)
		bq = &sq
	}
	h.insert(id, bq)
}

// build is the store inserts and repairs score with: the int8 shadow of an
// F32 graph, or the int8 rows themselves.
func (h *HNSW) build() *store {
	if h.st.storage == F32 {
		return &h.shadow
	}
	return &h.st
}

// allocSlot takes a free slot or appends one, with empty links up to level.
func (h *HNSW) allocSlot(level int) uint32 {
	var id uint32
	if n := len(h.free); n > 0 {
		id = h.free[n-1]
		h.free = h.free[:n-1]
	} else {
		id = uint32(len(h.levels))
		h.levels = append(h.levels, -1)
		h.keys = append(h.keys, 0)
		h.upper = append(h.upper, nil)
		h.l0 = growSlice(h.l0, len(h.levels)*(h.m0+1))
		h.st.grow(len(h.levels))
		if h.st.storage == F32 {
			h.shadow.grow(len(h.levels))
		}
	}
	h.levels[id] = int8(level)
	clear(h.linkBlock(id, 0))
	h.upper[id] = nil
	if level > 0 {
		h.upper[id] = make([]uint32, level*(h.m+1))
	}
	return id
}

// insert links node id (its row already written) into the graph; q is
// its vector in the build store's representation.
func (h *HNSW) insert(id uint32, q *query) {
	level := int(h.levels[id])
	if h.maxLevel < 0 {
		h.entry, h.maxLevel = id, level
		return
	}
	s, st := h.w, h.build()
	cur := h.greedy(st, q, level, s)
	for l := min(level, h.maxLevel); l >= 0; l-- {
		h.searchLayer(st, q, cur, h.opts.EfConstruction, l, s)
		found := s.drainSorted()
		cur = found[0]
		// relink below reuses the heuristic's buffer, so keep a copy.
		s.chosen = append(s.chosen[:0], h.selectNeighbours(found, h.m, s)...)
		s.ids = s.ids[:0]
		for _, c := range s.chosen {
			s.ids = append(s.ids, c.id)
		}
		h.setLinks(id, l, s.ids)
		for _, c := range s.chosen {
			h.linkBack(c.id, id, c.dist, l, s)
		}
	}
	if level > h.maxLevel {
		h.entry, h.maxLevel = id, level
	}
}

// selectNeighbours is hnswlib's getNeighborsByHeuristic2: walking the
// candidates closest first, keep one only if it is closer to the new node
// than to every node already kept, so links spread in all directions
// instead of piling into one cluster. sorted is closest first.
func (h *HNSW) selectNeighbours(sorted []cand, m int, s *searchScratch) []cand {
	if len(sorted) <= m {
		return append(s.tmp[:0], sorted...)
	}
	kept := s.tmp[:0]
	for _, c := range sorted {
		if len(kept) >= m {
			break
		}
		rows := s.krows[:0]
		for _, k := range kept {
			rows = append(rows, k.id)
		}
		s.krows = rows
		st := h.build()
		cq := st.rowQuery(int(c.id))
		s.scores = growSlice(s.scores, len(rows))
		s.dots = growSlice(s.dots, len(rows))
		st.scoreRows(&cq, rows, s.scores, s.dots)
		good := true
		for i := range rows {
			if -s.scores[i] < c.dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		}
	}
	s.tmp = kept
	return kept
}

// linkBack adds a link nb → id at level; a full list is re-chosen by the
// heuristic among its links and the new node.
func (h *HNSW) linkBack(nb, id uint32, dist float32, level int, s *searchScratch) {
	links := h.links(nb, level)
	limit := h.maxLinks(level)
	if len(links) < limit {
		b := h.linkBlock(nb, level)
		b[1+b[0]] = id
		b[0]++
		return
	}
	s.rids = append(append(s.rids[:0], links...), id)
	h.relink(nb, level, s.rids, s)
}

// relink replaces nb's links at level by the heuristic's choice among ids.
func (h *HNSW) relink(nb uint32, level int, ids []uint32, s *searchScratch) {
	st := h.build()
	nq := st.rowQuery(int(nb))
	s.rscores = growSlice(s.rscores, len(ids))
	s.rdots = growSlice(s.rdots, len(ids))
	st.scoreRows(&nq, ids, s.rscores, s.rdots)
	cands := s.rcands[:0]
	for i, x := range ids {
		cands = append(cands, cand{dist: -s.rscores[i], id: x})
	}
	s.rcands = cands
	slices.SortFunc(cands, func(a, b cand) int {
		if closer(a, b) {
			return -1
		}
		if closer(b, a) {
			return 1
		}
		return 0
	})
	chosen := h.selectNeighbours(cands, h.maxLinks(level), s)
	out := s.rout[:0]
	for _, c := range chosen {
		out = append(out, c.id)
	}
	s.rout = out
	h.setLinks(nb, level, out)
}

// Delete removes key and repairs the graph around it.
func (h *HNSW) Delete(key uint64) bool {
	id, ok := h.nodeOf.get(key)
	if !ok {
		return false
	}
	if h.w == nil {
		h.w = new(searchScratch)
	}
	h.nodeOf.del(key)
	top := int(h.levels[id])
	for l := 0; l <= top; l++ {
		h.unlink(id, l)
	}
	h.levels[id] = -1
	h.keys[id] = 0
	clear(h.linkBlock(id, 0))
	h.upper[id] = nil
	h.st.clear(int(id))
	if h.st.storage == F32 {
		h.shadow.clear(int(id))
	}
	h.free = append(h.free, id)
	if h.entry == id {
		h.pickEntry()
	}
	return true
}

// unlink removes every link to id at level, giving each node that lost one
// the best of its remaining links and of id's links.
func (h *HNSW) unlink(id uint32, level int) {
	orphans := slices.Clone(h.links(id, level))
	for u := range h.levels {
		uid := uint32(u)
		if int(h.levels[u]) < level || uid == id {
			continue
		}
		links := h.links(uid, level)
		at := slices.Index(links, id)
		if at < 0 {
			continue
		}
		ids := make([]uint32, 0, len(links)+len(orphans))
		ids = append(ids, links[:at]...)
		ids = append(ids, links[at+1:]...)
		for _, o := range orphans {
			if o != uid && !slices.Contains(ids, o) {
				ids = append(ids, o)
			}
		}
		if len(ids) <= h.maxLinks(level) {
			h.setLinks(uid, level, ids)
		} else {
			h.relink(uid, level, ids, h.w)
		}
	}
}

// pickEntry makes the live node with the highest level (lowest id among
// equals) the entry point.
func (h *HNSW) pickEntry() {
	h.maxLevel = -1
	for u, l := range h.levels {
		if int(l) > h.maxLevel {
			h.entry, h.maxLevel = uint32(u), int(l)
		}
	}
}

// each calls f for every live node in slot order.
func (h *HNSW) each(f func(key uint64, id int)) {
	for u, l := range h.levels {
		if l >= 0 {
			f(h.keys[u], u)
		}
	}
}

// SetEfSearch changes the search candidate-list size (0 means
// max(64, 4·k)). Like Add, it needs exclusive access.
func (h *HNSW) SetEfSearch(ef int) { h.opts.EfSearch = max(ef, 0) }
