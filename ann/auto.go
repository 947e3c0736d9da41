package ann

import "sync"

// Auto is the index [New] returns: exact search while it holds fewer than
// HNSWThreshold live vectors, HNSW from then on.
//
// Crossing the threshold starts building the graph in a background
// goroutine from a copy of the vectors, so no Add stalls for the seconds a
// build takes; until the graph has caught up with every later Add and
// Delete, searches keep using the exact index (and stay exact). The next
// call after that swaps the graph in. If deletions bring the count below
// half the threshold, Auto returns to exact search.
//
// Concurrency is as for [Index]: Search, Len, Dim and marshalling may run
// together; Add and Delete need exclusive access.
type Auto struct {
	dim  int
	opts Options

	mu    sync.Mutex // guards the three fields below against Search's swap
	exact *Exact
	hnsw  *HNSW
	build *builder
}

// NewAuto returns an empty index that starts exact.
func NewAuto(dim int, opts Options) *Auto {
	opts = opts.withDefaults()
	return &Auto{dim: dim, opts: opts, exact: NewExact(dim, opts)}
}

// builder owns a graph being built in the background and the writes made
// since its snapshot, which it applies in order until it has caught up.
type builder struct {
	mu    sync.Mutex
	ops   []op
	ready bool // caught up: ops is empty and nothing is applying
	stop  bool // Close asked the build to give up
	done  chan struct{}
	h     *HNSW
}

type op struct {
	key uint64
	vec []float32 // nil for a delete
}

// Dim returns the vector dimension.
func (a *Auto) Dim() int { return a.dim }

// current returns the live index, first swapping in a graph that has
// caught up.
func (a *Auto) current() Index {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b := a.build; b != nil {
		b.mu.Lock()
		if b.ready {
			a.hnsw, a.exact, a.build = b.h, nil, nil
		}
		b.mu.Unlock()
	}
	if a.hnsw != nil {
		return a.hnsw
	}
	return a.exact
}

// Len returns the number of live keys.
func (a *Auto) Len() int { return a.current().Len() }

// Search returns up to k hits, best first.
func (a *Auto) Search(vec []float32, k int) []Hit { return a.current().Search(vec, k) }

// UsingHNSW reports whether searches go to the graph.
func (a *Auto) UsingHNSW() bool {
	_, ok := a.current().(*HNSW)
	return ok
}

// Wait blocks until a background build, if any, has caught up and been
// swapped in. Like Add, it needs exclusive access.
func (a *Auto) Wait() {
	a.mu.Lock()
	b := a.build
	a.mu.Unlock()
	if b != nil {
		<-b.done
	}
	a.current()
}

// Add stores vec under key, replacing the key's previous vector.
func (a *Auto) Add(key uint64, vec []float32) error {
	if err := checkVector(a.dim, vec); err != nil {
		return err
	}
	idx := a.current()
	if err := idx.Add(key, vec); err != nil {
		return err
	}
	if a.exact != nil {
		a.forward(op{key: key, vec: append([]float32(nil), vec...)})
		a.maybeBuild()
	}
	return nil
}

// Delete removes key and reports whether it was present.
func (a *Auto) Delete(key uint64) bool {
	idx := a.current()
	if !idx.Delete(key) {
		return false
	}
	if a.exact != nil {
		a.forward(op{key: key})
		return true
	}
	if a.opts.HNSWThreshold > 0 && a.hnsw.Len() < a.opts.HNSWThreshold/2 {
		a.toExact()
	}
	return true
}

// forward queues a write for a graph being built. If the builder has
// just finished, the writer (which has exclusive access) applies it itself.
func (a *Auto) forward(o op) {
	b := a.build
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ready {
		b.h.apply(o)
		return
	}
	b.ops = append(b.ops, o)
}

func (h *HNSW) apply(o op) {
	if o.vec == nil {
		h.Delete(o.key)
	} else {
		h.Add(o.key, o.vec) // checked by Auto.Add already
	}
}

// maybeBuild starts the background build once the exact index reaches the
// threshold.
func (a *Auto) maybeBuild() {
	if a.build != nil || a.opts.HNSWThreshold <= 0 || a.exact.Len() < a.opts.HNSWThreshold {
		return
	}
	h := NewHNSW(a.dim, a.opts)
	snap := a.exact.snapshot()
	b := &builder{done: make(chan struct{}), h: h}
	a.mu.Lock()
	a.build = b
	a.mu.Unlock()
	go b.run(snap)
}

// snapshot copies the live rows, in row order, for a background build.
func (e *Exact) snapshot() (s snapshotRows) {
	s.st = newStore(e.st.dim, e.st.storage)
	s.st.grow(e.Len())
	i := 0
	e.each(func(key uint64, row int) {
		q := e.st.rowQuery(row)
		s.st.set(i, &q)
		s.keys = append(s.keys, key)
		i++
	})
	return s
}

type snapshotRows struct {
	st   store
	keys []uint64
}

func (b *builder) run(snap snapshotRows) {
	for i, key := range snap.keys {
		if i%256 == 0 && b.stopped() {
			close(b.done)
			return
		}
		q := snap.st.rowQuery(i)
		b.h.addQuery(key, &q)
	}
	for {
		b.mu.Lock()
		ops := b.ops
		b.ops = nil
		if len(ops) == 0 {
			b.ready = true
			b.mu.Unlock()
			close(b.done)
			return
		}
		b.mu.Unlock()
		for _, o := range ops {
			b.h.apply(o)
		}
	}
}

func (b *builder) stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stop
}

// toExact moves the graph's vectors back into an exact index.
func (a *Auto) toExact() {
	e := NewExact(a.dim, a.opts)
	h := a.hnsw
	h.each(func(key uint64, id int) {
		q := h.st.rowQuery(id)
		e.addQuery(key, &q)
	})
	a.mu.Lock()
	a.exact, a.hnsw = e, nil
	a.mu.Unlock()
}
