package vault

import (
	"fmt"

	"github.com/compartment/compartment/internal/search"
)

// An open vault holds every record's int8 windows twice unless told
// otherwise: decoded into the record, and copied into the vector index's
// one contiguous matrix that search scans. At 20,000 one-window records
// that is 7.7 MB of duplicates, a sixth of the live heap. So once a replay
// has been indexed, each record whose windows the index hands back
// byte for byte gives its own copy up and reads them from the index when
// it needs them (re-encoding the record on an update, a neighbour query);
// before the index lets go of a record's windows, the record takes its
// copy back ([Vectors.reclaim]). A record a write indexes (a store, an
// import's batch) gives its copy up the same way: an import of 100,000
// memories otherwise held every one of their windows twice until the vault
// was opened again.

// int8Windows returns the windows' codes and scales, from the index when
// the record gave its copy up. A detached record whose windows the index
// no longer holds is a bug: it panics rather than write a record without
// its vectors.
func (v *Vectors) int8Windows() ([][]int8, []float32) {
	if v.engine == nil {
		return v.I8, v.Scales
	}
	i8, scales, ok := v.engine.Int8Windows(v.doc, v.windows)
	if !ok {
		panic(fmt.Sprintf("vault: a record's %d windows are neither in the record nor in the index", v.windows))
	}
	return i8, scales
}

// reclaim takes the windows back from the index, before it drops them.
func (v *Vectors) reclaim() {
	if v == nil || v.engine == nil {
		return
	}
	v.I8, v.Scales = v.int8Windows()
	v.engine, v.doc, v.windows = nil, 0, 0
}

// shareWithIndex gives up the record's copy of its int8 windows when the
// engine holds exactly the same codes and scales under doc.
func (v *Vectors) shareWithIndex(engine *search.Engine, doc uint32) {
	if v == nil || v.F32 != nil || v.engine != nil || len(v.I8) == 0 {
		return
	}
	n := len(v.I8)
	if !engine.HoldsInt8Windows(doc, v.I8, v.Scales) {
		return
	}
	v.I8, v.Scales, v.windows, v.doc, v.engine = nil, nil, n, doc, engine
}
