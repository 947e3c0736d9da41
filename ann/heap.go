package ann

// cand is a graph node and its distance to the query (1 − cosine, so
// smaller is closer, as in hnswlib's inner-product space).
type cand struct {
	dist float32
	id   uint32
}

// closer orders candidates by distance, then by id, so every search is
// deterministic even among equal distances.
func closer(a, b cand) bool {
	return a.dist < b.dist || (a.dist == b.dist && a.id < b.id)
}

// compareCands is closer as a comparison for slices.SortFunc.
func compareCands(a, b cand) int {
	switch {
	case closer(a, b):
		return -1
	case closer(b, a):
		return 1
	}
	return 0
}

// minHeap pops the closest candidate first.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !closer(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	*h = s
	// Sift down, written out rather than shared with maxHeap: a comparison
	// passed as a func value costs an indirect call per step.
	n, i := len(s), 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && closer(s[r], s[l]) {
			m = r
		}
		if !closer(s[m], s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}

// maxHeap pops the farthest candidate first: the bounded result set.
type maxHeap []cand

func farther(a, b cand) bool { return closer(b, a) }

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !closer(s[p], s[i]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	*h = s
	n, i := len(s), 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && closer(s[l], s[r]) {
			m = r
		}
		if !closer(s[i], s[m]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}

// topK keeps the k best hits seen so far in a min-heap whose root is the
// worst kept hit, so most rows are rejected with one comparison.
type topK struct {
	k    int
	hits []Hit
}

// worse orders hits by score, then by key (the larger key is worse).
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Key > b.Key)
}

// admits reports whether a hit with this score could enter the heap; a
// cheap filter before building the Hit.
func (t *topK) admits(score float32) bool {
	return len(t.hits) < t.k || score >= t.hits[0].Score
}

func (t *topK) offer(h Hit) {
	s := t.hits
	if len(s) < t.k {
		s = append(s, h)
		i := len(s) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(s[i], s[p]) {
				break
			}
			s[i], s[p] = s[p], s[i]
			i = p
		}
		t.hits = s
		return
	}
	if !worse(s[0], h) {
		return
	}
	s[0] = h
	t.fix()
}

// sorted returns the kept hits best first, emptying the heap.
func (t *topK) sorted() []Hit {
	out := make([]Hit, len(t.hits))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = t.hits[0]
		last := len(t.hits) - 1
		t.hits[0] = t.hits[last]
		t.hits = t.hits[:last]
		t.fix()
	}
	return out
}

func (t *topK) fix() {
	s := t.hits
	n, i := len(s), 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(s[r], s[l]) {
			m = r
		}
		if !worse(s[m], s[i]) {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}
