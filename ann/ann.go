package ann

import (
	"fmt"
	"sort"
)

// Hit is one search result: the caller's key and its cosine similarity to
// the query (vectors are L2-normalised, so the dot product is the cosine).
type Hit struct {
	Key   uint64
	Score float32
}

// Index is what the vault and the benchmarks use. Implementations are safe
// for one writer or many readers at a time (callers hold their own lock).
type Index interface {
	// Add stores vec (L2-normalised, Dim() long) under key. Adding an
	// existing key replaces its vector.
	Add(key uint64, vec []float32) error
	// Delete removes key; it reports whether the key was present. A deleted
	// key is never returned by Search.
	Delete(key uint64) bool
	// Search returns up to k hits, best first.
	Search(query []float32, k int) []Hit
	// Len is the number of live keys.
	Len() int
	// Dim is the vector dimension.
	Dim() int
}

// Options configure [New].
type Options struct {
	// HNSWThreshold is the number of live vectors at which the index moves
	// from exact search to HNSW. Zero means the default (20,000).
	HNSWThreshold int
}

// New returns the index the vault uses: exact below the HNSW threshold.
//
// Placeholder: a brute-force float32 index, to be replaced by the SIMD
// exact index and HNSW (issue 3).
func New(dim int, opts Options) Index {
	return &bruteForce{dim: dim, vecs: map[uint64][]float32{}}
}

type bruteForce struct {
	dim  int
	vecs map[uint64][]float32
}

func (b *bruteForce) Add(key uint64, vec []float32) error {
	if len(vec) != b.dim {
		return fmt.Errorf("ann: vector has %d dims, index has %d", len(vec), b.dim)
	}
	b.vecs[key] = append([]float32(nil), vec...)
	return nil
}

func (b *bruteForce) Delete(key uint64) bool {
	_, ok := b.vecs[key]
	delete(b.vecs, key)
	return ok
}

func (b *bruteForce) Search(q []float32, k int) []Hit {
	hits := make([]Hit, 0, len(b.vecs))
	for key, v := range b.vecs {
		var s float32
		for i := range v {
			s += v[i] * q[i]
		}
		hits = append(hits, Hit{key, s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Key < hits[j].Key
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func (b *bruteForce) Len() int { return len(b.vecs) }
func (b *bruteForce) Dim() int { return b.dim }
