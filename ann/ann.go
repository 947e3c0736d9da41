package ann

import (
	"errors"
	"fmt"
)

// Hit is one search result: the caller's key and its cosine similarity to
// the query (vectors are L2-normalised, so the dot product is the cosine).
// With int8 storage the score is the dequantised int8 dot product, within
// about 0.01 of the float cosine for 384-dim unit vectors.
type Hit struct {
	Key   uint64
	Score float32
}

// Index is what the vault and the benchmarks use.
//
// Concurrency: Search, Len, Dim and marshalling may run concurrently with
// each other; Add and Delete need exclusive access (the vault holds a
// read-write lock: readers share it, writers take it alone).
type Index interface {
	// Add stores vec (L2-normalised, Dim() long) under key. Adding an
	// existing key replaces its vector.
	Add(key uint64, vec []float32) error
	// Delete removes key; it reports whether the key was present. A deleted
	// key is never returned by Search.
	Delete(key uint64) bool
	// Search returns up to k hits, best first; equal scores are ordered by
	// key.
	Search(query []float32, k int) []Hit
	// Len is the number of live keys.
	Len() int
	// Dim is the vector dimension.
	Dim() int
}

// Storage is how an index holds its vectors. Part of the format (FORMAT.md
// section 4): do not change the values.
type Storage uint8

const (
	// Int8 stores each vector as int8 with one float32 scale (symmetric
	// quantisation): a quarter of the memory and bandwidth of F32.
	Int8 Storage = 1
	// F32 stores each vector as float32: exact scores.
	F32 Storage = 2
)

func (s Storage) String() string {
	switch s {
	case Int8:
		return "int8"
	case F32:
		return "f32"
	}
	return fmt.Sprintf("storage(%d)", uint8(s))
}

// Defaults, from hnswlib's recommendations and the vault's sizes.
const (
	DefaultHNSWThreshold  = 20000
	DefaultM              = 16
	DefaultEfConstruction = 200
	DefaultSeed           = 0x636f6d7061727421 // "compart!"
	maxLevelCap           = 16
	maxM                  = 256
)

// Options configure the indexes. The zero value means every default.
type Options struct {
	// HNSWThreshold is the number of live vectors at which [New]'s index
	// moves from exact search to HNSW. Zero means the default (20,000); a
	// negative value means never.
	HNSWThreshold int
	// Storage is Int8 (the default when zero) or F32.
	Storage Storage
	// M is the HNSW out-degree above layer 0; layer 0 allows 2·M. Zero
	// means 16.
	M int
	// EfConstruction is the candidate-list size while inserting. Zero
	// means 200.
	EfConstruction int
	// EfSearch is the candidate-list size while searching, at least k.
	// Zero means max(64, 4·k).
	EfSearch int
	// Seed seeds the level generator, so equal inputs build equal graphs.
	// Zero means [DefaultSeed].
	Seed uint64
}

// withDefaults fills in zero fields.
func (o Options) withDefaults() Options {
	if o.HNSWThreshold == 0 {
		o.HNSWThreshold = DefaultHNSWThreshold
	}
	if o.Storage == 0 {
		o.Storage = Int8
	}
	if o.M == 0 {
		o.M = DefaultM
	}
	if o.M < 2 {
		o.M = 2 // ln(M) must be positive for the level distribution
	}
	if o.M > maxM {
		o.M = maxM
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = DefaultEfConstruction
	}
	if o.EfSearch < 0 {
		o.EfSearch = 0
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// ErrCorrupt is returned (wrapped) by [Unmarshal] for bytes that are not a
// well-formed index.
var ErrCorrupt = errors.New("ann: corrupt index bytes")

var errNonFinite = errors.New("ann: vector has NaN or infinite values")

func errDim(got, want int) error {
	return fmt.Errorf("ann: vector has %d dims, index has %d", got, want)
}

// New returns the index the vault uses: exact while it holds fewer than
// opts.HNSWThreshold live vectors, HNSW from then on (see [Auto]).
func New(dim int, opts Options) Index {
	return NewAuto(dim, opts)
}
