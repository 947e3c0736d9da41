package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/compartment/compartment/ann"
	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/rank"
)

// Errors a caller acts on.
var (
	// ErrEmptyQuery: the query text is empty or only white space.
	ErrEmptyQuery = errors.New("search: empty query")
	// ErrDimension: a vector's length differs from the engine's dimension.
	ErrDimension = errors.New("search: vector dimension mismatch")
)

// MaxWindows is the most embedding windows one record may have; a window's
// index lives in the low byte of its vector key.
const MaxWindows = 256

// DocMeta is what the priors need to know about a record.
type DocMeta struct {
	Namespace string
	// Seq is the write order: a larger Seq was written later. The vault
	// share of a record is the share of its population with a larger Seq.
	Seq        uint64
	Importance float64 // in [0, 1]; 0.5 is neutral
	Opinion    bool
	Affirmed   time.Time // last (re-)affirmation of an opinion
	// Reference marks reference facts and pack records: they arrive by the
	// thousand at one instant and have no age, so they are left out of
	// the population the vault share counts (and are never aged).
	Reference bool
}

// Engine is the hybrid search engine. It is safe for concurrent Search
// calls alongside one writer (Add, Remove, SetMeta).
type Engine struct {
	mu   sync.RWMutex
	dim  int
	lex  *fts.Index
	vec  ann.Index // nil when dim == 0
	docs docTable
	pop  population
	cal  rank.Calibration
	// reads is Options.Reads.
	reads func(term string) bool
	// scratch holds *gatherScratch: one per concurrent search.
	scratch sync.Pool
}

// New returns an empty engine for vectors of dim dimensions; dim 0 means
// no semantic channel (literal search only).
func New(dim int) *Engine { return NewWith(dim, Options{}) }

// Options configure [NewWith].
type Options struct {
	// HNSWThreshold is the number of vectors at which vector search moves
	// from exact to HNSW; 0 means ann's default (20,000).
	HNSWThreshold int
	// Calibration is what the vectors' cosines mean: the encoder's
	// calibration. The zero value means bge-small's (rank.SpecCalibration);
	// a caller with a model refuses an uncalibrated one before it gets
	// here (embed.CheckCalibrated).
	Calibration rank.Calibration
	// Reads reports whether the model whose vectors the engine holds has
	// a vector for a query term (embed.ReadsOf); nil means it reads
	// every word. The share of a query's information it cannot read
	// lowers the semantic channel's weight (rank.SemanticReliability).
	Reads func(term string) bool
}

// NewWith is [New] with options.
func NewWith(dim int, opts Options) *Engine {
	cal := opts.Calibration
	if cal == (rank.Calibration{}) {
		cal = rank.SpecCalibration
	}
	e := &Engine{dim: dim, lex: fts.New(), pop: newPopulation(), cal: cal, reads: opts.Reads}
	if dim > 0 {
		e.vec = ann.New(dim, ann.Options{HNSWThreshold: opts.HNSWThreshold})
	}
	return e
}

// Close stops background work (an HNSW graph being built); the engine is
// being thrown away.
func (e *Engine) Close() {
	if c, ok := e.vec.(interface{ Close() }); ok {
		c.Close()
	}
}

// Dim is the vector dimension; 0 when the engine is literal only.
func (e *Engine) Dim() int { return e.dim }

// Len is the number of records.
func (e *Engine) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.docs.n
}

// Has reports whether doc is indexed.
func (e *Engine) Has(doc uint32) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.docs.has(doc)
}

// Add indexes a record, replacing any earlier version of doc: its text in
// the literal index, each of its embedding windows in the vector index
// (windows may be empty: the record is then found literally only), and
// its metadata.
func (e *Engine) Add(doc uint32, text string, windows [][]float32, meta DocMeta) error {
	if err := e.checkWindows(doc, windows); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.remove(doc)
	for i, w := range windows {
		if err := e.vec.Add(windowKey(doc, i), w); err != nil {
			for j := range i {
				e.vec.Delete(windowKey(doc, j))
			}
			return fmt.Errorf("search: doc %d window %d: %w", doc, i, err)
		}
	}
	e.lex.Add(doc, text)
	e.docs.set(doc, meta)
	e.pop.add(meta)
	return nil
}

// Doc is one record for [Engine.AddBatch]. Its windows come as float32
// (Windows) or already quantised to int8 with one scale each (Int8 and
// Scales, as a vault stores them), which saves converting them back.
type Doc struct {
	ID      uint32
	Text    string
	Windows [][]float32
	Int8    [][]int8
	Scales  []float32
	Meta    DocMeta
}

// AddBatch indexes many records at once, as opening a vault does: the
// literal and the vector index are built side by side, one goroutine each,
// which roughly halves the time on two cores. A doc already indexed is
// replaced. Nothing is indexed when any doc is invalid.
func (e *Engine) AddBatch(docs []Doc) error {
	for _, d := range docs {
		if err := e.checkWindows(d.ID, d.Windows); err != nil {
			return err
		}
		if err := e.checkInt8(d); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range docs {
		e.remove(d.ID)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, d := range docs {
			e.lex.Add(d.ID, d.Text)
		}
	}()
	var vecErr error
	quantized, _ := e.vec.(ann.QuantizedAdder)
	for _, d := range docs {
		for i, w := range d.Windows {
			if err := e.vec.Add(windowKey(d.ID, i), w); err != nil && vecErr == nil {
				vecErr = fmt.Errorf("search: doc %d window %d: %w", d.ID, i, err)
			}
		}
		for i, w := range d.Int8 {
			if err := quantized.AddInt8(windowKey(d.ID, i), w, d.Scales[i]); err != nil && vecErr == nil {
				vecErr = fmt.Errorf("search: doc %d window %d: %w", d.ID, i, err)
			}
		}
	}
	wg.Wait()
	for _, d := range docs {
		e.docs.set(d.ID, d.Meta)
		e.pop.add(d.Meta)
	}
	return vecErr
}

// checkInt8 refuses quantised windows the vector index cannot take.
func (e *Engine) checkInt8(d Doc) error {
	if len(d.Int8) == 0 {
		return nil
	}
	if _, ok := e.vec.(ann.QuantizedAdder); !ok || len(d.Windows) > 0 || len(d.Scales) != len(d.Int8) || len(d.Int8) > MaxWindows {
		return fmt.Errorf("search: doc %d: %w: int8 windows need a vector index, one scale each, and no float windows beside them", d.ID, ErrDimension)
	}
	for i, w := range d.Int8 {
		if len(w) != e.dim {
			return fmt.Errorf("search: doc %d window %d has %d dims, want %d: %w", d.ID, i, len(w), e.dim, ErrDimension)
		}
	}
	return nil
}

// checkWindows refuses windows the vector index cannot take.
func (e *Engine) checkWindows(doc uint32, windows [][]float32) error {
	if len(windows) > MaxWindows {
		return fmt.Errorf("search: doc %d has %d windows, at most %d", doc, len(windows), MaxWindows)
	}
	if len(windows) > 0 && e.dim == 0 {
		return fmt.Errorf("search: doc %d: %w: engine has no semantic channel", doc, ErrDimension)
	}
	for i, w := range windows {
		if len(w) != e.dim {
			return fmt.Errorf("search: doc %d window %d has %d dims, want %d: %w", doc, i, len(w), e.dim, ErrDimension)
		}
	}
	return nil
}

// Neighbor is a record and its best window's cosine to a vector.
type Neighbor struct {
	Doc uint32
	Cos float64
}

// Nearest returns up to k records whose best window is nearest to vec,
// best first, among those keep accepts (nil keeps all): what near-duplicate
// and opinion checks ask before a store. The window pool widens ×4 until k
// records pass or the index is exhausted.
func (e *Engine) Nearest(vec []float32, k int, keep func(doc uint32) bool) ([]Neighbor, error) {
	if e.vec == nil || k <= 0 {
		return nil, nil
	}
	if len(vec) != e.dim {
		return nil, fmt.Errorf("search: nearest: %w: %d dims, want %d", ErrDimension, len(vec), e.dim)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	total := e.vec.Len()
	for pool := max(4*k, 32); ; pool *= 4 {
		best := map[uint32]float64{}
		var order []uint32
		for _, h := range e.vec.Search(vec, min(pool, total)) {
			doc, _ := keyDoc(h.Key)
			if keep != nil && !keep(doc) {
				continue
			}
			if cos, seen := best[doc]; !seen {
				order = append(order, doc)
				best[doc] = float64(h.Score)
			} else if float64(h.Score) > cos {
				best[doc] = float64(h.Score)
			}
		}
		if len(order) >= k || pool >= total {
			out := make([]Neighbor, len(order))
			for i, d := range order {
				out[i] = Neighbor{Doc: d, Cos: best[d]}
			}
			slices.SortStableFunc(out, func(a, b Neighbor) int {
				switch {
				case a.Cos > b.Cos:
					return -1
				case a.Cos < b.Cos:
					return 1
				}
				return 0
			})
			return out[:min(k, len(out))], nil
		}
	}
}

// Remove drops doc from both indexes; it reports whether doc was there.
func (e *Engine) Remove(doc uint32) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.remove(doc)
}

func (e *Engine) remove(doc uint32) bool {
	meta, ok := e.docs.get(doc)
	if !ok {
		return false
	}
	e.deleteWindows(doc)
	e.lex.Delete(doc)
	e.pop.remove(meta)
	e.docs.del(doc)
	return true
}

// SetMeta replaces a record's metadata (an opinion re-affirmed, a new
// importance) without re-indexing its text or vectors.
func (e *Engine) SetMeta(doc uint32, meta DocMeta) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	old, ok := e.docs.get(doc)
	if !ok {
		return fmt.Errorf("search: set meta: doc %d is not indexed", doc)
	}
	e.pop.remove(old)
	e.docs.set(doc, meta)
	e.pop.add(meta)
	return nil
}

// deleteWindows removes a record's vectors. Add numbers a record's
// windows 0, 1, … with no gap, so the first missing key ends them.
func (e *Engine) deleteWindows(doc uint32) {
	if e.vec == nil {
		return
	}
	for i := 0; i < MaxWindows && e.vec.Delete(windowKey(doc, i)); i++ {
	}
}

// windowKey packs a record and one of its windows into an ann key.
func windowKey(doc uint32, window int) uint64 { return uint64(doc)<<8 | uint64(window) }

func keyDoc(key uint64) (uint32, int) { return uint32(key >> 8), int(key & 0xFF) }

// population keeps, per namespace, the sorted write orders of the records
// that count for the vault share (every record but reference ones).
type population struct {
	byNS map[string][]uint64
}

func newPopulation() population { return population{byNS: map[string][]uint64{}} }

func (p population) add(m DocMeta) {
	if m.Reference {
		return
	}
	s := p.byNS[m.Namespace]
	i, _ := slices.BinarySearch(s, m.Seq)
	p.byNS[m.Namespace] = slices.Insert(s, i, m.Seq)
}

func (p population) remove(m DocMeta) {
	if m.Reference {
		return
	}
	s := p.byNS[m.Namespace]
	if i, ok := slices.BinarySearch(s, m.Seq); ok {
		s = slices.Delete(s, i, i+1)
	}
	if len(s) == 0 {
		delete(p.byNS, m.Namespace)
	} else {
		p.byNS[m.Namespace] = s
	}
}

// share is the vault share q of a record written at seq: the share of the
// population in namespaces (all when nil) written after it.
func (p population) share(seq uint64, namespaces []string) float64 {
	total, after := 0, 0
	count := func(s []uint64) {
		// i: the first write order after seq (sort.Search's bisection,
		// without a closure call per step: it runs for every candidate).
		i, j := 0, len(s)
		for i < j {
			h := int(uint(i+j) >> 1)
			if s[h] <= seq {
				i = h + 1
			} else {
				j = h
			}
		}
		total += len(s)
		after += len(s) - i
	}
	if namespaces == nil {
		for _, s := range p.byNS {
			count(s)
		}
	} else {
		for _, ns := range namespaces {
			count(p.byNS[ns])
		}
	}
	if total == 0 {
		return 0
	}
	return float64(after) / float64(total)
}

// trimmed reports whether a query text has any content.
func trimmed(s string) bool { return strings.TrimSpace(s) != "" }
