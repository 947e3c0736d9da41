package search

import (
	"fmt"
	"slices"
	"sync"

	"github.com/compartment/compartment/ann"
)

// Snapshot holds an engine's two indexes as bytes, for a caller that seals
// them and restores the engine on open without re-tokenising and
// re-embedding every record. The per-record metadata is not in it: the
// caller has it in its records.
type Snapshot struct {
	Literal []byte // fts snapshot, FORMAT.md section 5
	Vectors []byte // ann index bytes, FORMAT.md section 4; nil without a semantic channel
	// VectorParts, when not nil, holds the ann index bytes instead of
	// Vectors, in consecutive pieces read where they lie (a restore
	// from a vault's segment parts, without joining them).
	VectorParts [][]byte
}

// Snapshot writes both indexes. It may run alongside searches.
func (e *Engine) Snapshot() (Snapshot, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var s Snapshot
	var err error
	if s.Literal, err = e.lex.MarshalBinary(); err != nil {
		return Snapshot{}, fmt.Errorf("search: snapshot: %w", err)
	}
	if e.vec != nil {
		if s.Vectors, err = ann.Marshal(e.vec); err != nil {
			return Snapshot{}, fmt.Errorf("search: snapshot: %w", err)
		}
	}
	return s, nil
}

// Restore builds an engine from a snapshot and the metadata of every
// record in it. It refuses a snapshot whose records differ from meta's, or
// whose vectors have another dimension: the caller then re-indexes from
// its records. Errors from the indexes wrap fts.ErrCorrupt, fts.ErrStale
// or ann.ErrCorrupt.
func Restore(dim int, snap Snapshot, meta map[uint32]DocMeta, opts Options) (*Engine, error) {
	e, err := RestoreIndexes(dim, snap, opts)
	if err != nil {
		return nil, err
	}
	if err := e.AttachMeta(meta); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// RestoreIndexes is the first half of [Restore]: the two indexes, before
// the records' metadata is known. A caller that reads the snapshot ahead
// of its records checks their vectors against it as they arrive, then
// calls [Engine.AttachMeta]; until then the engine must not be searched.
func RestoreIndexes(dim int, snap Snapshot, opts Options) (*Engine, error) {
	e := NewWith(dim, opts)
	if err := e.restoreIndexes(dim, snap); err != nil {
		return nil, err
	}
	return e, nil
}

// RestoreIndexesAsync is [RestoreIndexes] in the background, for a caller
// with other work to do meanwhile: it returns the engine at once, to be
// held but not used, and wait, which blocks until the indexes are in and
// returns RestoreIndexes' error. Only once wait has returned nil may the
// engine be used; after an error it may only be closed (after wait).
func RestoreIndexesAsync(dim int, snap Snapshot, opts Options) (e *Engine, wait func() error) {
	e = NewWith(dim, opts)
	done := make(chan error, 1)
	go func() { done <- e.restoreIndexes(dim, snap) }()
	return e, sync.OnceValue(func() error { return <-done })
}

// restoreIndexes fills the new engine e with the snapshot's two indexes.
func (e *Engine) restoreIndexes(dim int, snap Snapshot) error {
	// The two indexes decode side by side, one goroutine each, as
	// AddBatch builds them.
	lexErr := make(chan error, 1)
	go func() { lexErr <- e.lex.UnmarshalBinary(snap.Literal) }()
	var vec ann.Index
	var vecErr error
	switch {
	case dim > 0 && snap.VectorParts != nil:
		vec, vecErr = ann.UnmarshalParts(snap.VectorParts)
	case dim > 0:
		vec, vecErr = ann.Unmarshal(snap.Vectors)
	}
	if err := <-lexErr; err != nil {
		return fmt.Errorf("search: restore: %w", err)
	}
	if dim > 0 {
		if vecErr != nil {
			return fmt.Errorf("search: restore: %w", vecErr)
		}
		if vec.Dim() != dim {
			return fmt.Errorf("search: restore: vectors have %d dims, want %d: %w", vec.Dim(), dim, ErrDimension)
		}
		e.vec = vec
	} else if len(snap.Vectors) > 0 || snap.VectorParts != nil {
		return fmt.Errorf("search: restore: vectors in a snapshot for a literal-only engine: %w", ErrDimension)
	}
	return nil
}

// AttachMeta is the second half of [Restore]: the metadata of exactly the
// records the restored literal index holds.
func (e *Engine) AttachMeta(meta map[uint32]DocMeta) error {
	docs := make([]uint32, 0, len(meta))
	for doc := range meta {
		docs = append(docs, doc)
	}
	slices.Sort(docs)
	ms := make([]DocMeta, len(docs))
	for i, doc := range docs {
		ms[i] = meta[doc]
	}
	return e.AttachMetaDocs(docs, ms)
}

// AttachMetaDocs is [Engine.AttachMeta] for a caller that holds the
// records in doc order: meta[i] is the metadata of docs[i], and docs
// strictly ascend. Building the map AttachMeta takes was a tenth of an
// open at 100,000 memories.
func (e *Engine) AttachMetaDocs(docs []uint32, meta []DocMeta) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(docs) != len(meta) {
		return fmt.Errorf("search: restore: %d docs, %d metadata", len(docs), len(meta))
	}
	if e.lex.Len() != len(meta) {
		return fmt.Errorf("search: restore: snapshot has %d records, metadata %d", e.lex.Len(), len(meta))
	}
	for i, doc := range docs {
		if i > 0 && doc <= docs[i-1] {
			return fmt.Errorf("search: restore: doc %d after doc %d", doc, docs[i-1])
		}
		if !e.lex.Has(doc) {
			return fmt.Errorf("search: restore: record %d is not in the snapshot", doc)
		}
	}
	// Columns of the right length at once, not a hundred thousand growing
	// steps.
	e.docs = docTable{}
	if n := len(docs); n > 0 {
		e.docs.extend(int(min(int64(docs[n-1])+1, int64(n+e.docs.reach()))))
	}
	for i, doc := range docs {
		m := meta[i]
		e.docs.set(doc, m)
		if !m.Reference {
			e.pop.byNS[m.Namespace] = append(e.pop.byNS[m.Namespace], m.Seq)
		}
	}
	// One sort per namespace, not one insertion per record.
	for _, s := range e.pop.byNS {
		slices.Sort(s)
	}
	return nil
}

// SettleVectors waits until a vector graph being built in the background
// has caught up and been swapped in, so that a [Engine.Snapshot] taken
// next holds the graph rather than the exact index it replaces.
func (e *Engine) SettleVectors() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if a, ok := e.vec.(*ann.Auto); ok {
		a.Wait()
	}
}

// VectorCount is the number of windows in the vector index.
func (e *Engine) VectorCount() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.vec == nil {
		return 0
	}
	return e.vec.Len()
}
