package ann

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Serialised index bytes, all little-endian (FORMAT.md section 4):
//
//	+0   4  magic "cANN"
//	+4   1  version (1)
//	+5   1  kind: 1 exact, 2 HNSW
//	+6   1  storage: 1 int8, 2 float32
//	+7   1  flags: bit 0 = made by New (switches by threshold); others 0
//	+8   4  dim
//	+12  4  HNSW threshold (int32; ≤ 0 never switches)
//	+16  2  M
//	+18  2  reserved, 0
//	+20  4  efConstruction
//	+24  4  efSearch (0 = max(64, 4k))
//	+28  8  seed
//	+36  8  level-generator state (0 for exact)
//	+44  4  n, the number of vectors
//	+48     keys      n × u64
//	        vectors   int8: n × f32 scales, then n·dim × i8
//	                  float32: n·dim × f32
//	HNSW only:
//	        entry     u32 (0xFFFFFFFF when n = 0)
//	        levels    n × u8
//	        links     per node, per layer 0..level: u16 count, count × u32
//
// Node ids in the links are positions in the key list. Deleted vectors are
// never written.

// Part of the format: do not change.
const (
	magic         = "cANN"
	formatV1      = 1
	kindExact     = 1
	kindHNSW      = 2
	flagAuto      = 1
	headerSize    = 48
	noEntry       = math.MaxUint32
	maxDim        = 1 << 16
	maxEf         = 1 << 20
	maxSerialised = 1<<32 - 1
)

type header struct {
	kind, storage, flags byte
	dim                  int
	opts                 Options
	rng                  uint64
	n                    int
}

func appendHeader(b []byte, h header) []byte {
	le := binary.LittleEndian
	b = append(b, magic...)
	b = append(b, formatV1, h.kind, h.storage, h.flags)
	b = le.AppendUint32(b, uint32(h.dim))
	b = le.AppendUint32(b, uint32(int32(max(min(h.opts.HNSWThreshold, math.MaxInt32), -1))))
	b = le.AppendUint16(b, uint16(h.opts.M))
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, uint32(h.opts.EfConstruction))
	b = le.AppendUint32(b, uint32(h.opts.EfSearch))
	b = le.AppendUint64(b, h.opts.Seed)
	b = le.AppendUint64(b, h.rng)
	return le.AppendUint32(b, uint32(h.n))
}

// appendRows writes the keys and then the vectors of the listed rows.
func appendRows(b []byte, st *store, keys []uint64, rows []int) []byte {
	le := binary.LittleEndian
	for _, k := range keys {
		b = le.AppendUint64(b, k)
	}
	if st.storage == Int8 {
		for _, r := range rows {
			b = le.AppendUint32(b, math.Float32bits(st.scales[r]))
		}
		for _, r := range rows {
			for _, x := range st.i8[r*st.dim : (r+1)*st.dim] {
				b = append(b, byte(x))
			}
		}
		return b
	}
	for _, r := range rows {
		for _, x := range st.f32[r*st.dim : (r+1)*st.dim] {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
	}
	return b
}

// MarshalBinary returns the index's bytes (FORMAT.md section 4).
func (e *Exact) MarshalBinary() ([]byte, error) { return e.marshal(0, e.opts) }

func (e *Exact) marshal(flags byte, opts Options) ([]byte, error) {
	var keys []uint64
	var rows []int
	e.each(func(key uint64, row int) {
		keys = append(keys, key)
		rows = append(rows, row)
	})
	h := header{kind: kindExact, storage: byte(e.st.storage), flags: flags, dim: e.st.dim, opts: opts, n: len(keys)}
	b := make([]byte, 0, headerSize+len(keys)*(8+4+e.st.dim*4))
	return appendRows(appendHeader(b, h), &e.st, keys, rows), nil
}

// MarshalBinary returns the graph's bytes (FORMAT.md section 4).
func (h *HNSW) MarshalBinary() ([]byte, error) { return h.marshal(0, h.opts) }

func (h *HNSW) marshal(flags byte, opts Options) ([]byte, error) {
	// Live slots keep their relative order, so ties between equal
	// distances break the same way after a restore.
	newID := make([]uint32, len(h.levels))
	var keys []uint64
	var rows []int
	h.each(func(key uint64, id int) {
		newID[id] = uint32(len(rows))
		keys = append(keys, key)
		rows = append(rows, id)
	})
	hd := header{kind: kindHNSW, storage: byte(h.st.storage), flags: flags, dim: h.st.dim, opts: opts, rng: h.rng, n: len(rows)}
	b := make([]byte, 0, headerSize+len(rows)*(8+4+h.st.dim*4+1+2+4*h.m0))
	b = appendRows(appendHeader(b, hd), &h.st, keys, rows)
	le := binary.LittleEndian
	entry := uint32(noEntry)
	if len(rows) > 0 {
		entry = newID[h.entry]
	}
	b = le.AppendUint32(b, entry)
	for _, id := range rows {
		b = append(b, byte(h.levels[id]))
	}
	for _, id := range rows {
		for l := 0; l <= int(h.levels[id]); l++ {
			links := h.links(uint32(id), l)
			b = le.AppendUint16(b, uint16(len(links)))
			for _, nb := range links {
				b = le.AppendUint32(b, newID[nb])
			}
		}
	}
	return b, nil
}

// MarshalBinary returns the bytes of whichever index is live, flagged so
// that [Unmarshal] returns an [Auto] again.
func (a *Auto) MarshalBinary() ([]byte, error) {
	switch idx := a.current().(type) {
	case *HNSW:
		return idx.marshal(flagAuto, a.opts)
	case *Exact:
		return idx.marshal(flagAuto, a.opts)
	}
	return nil, fmt.Errorf("ann: marshal: no live index")
}

// Marshal returns the bytes of an index made by this package.
func Marshal(idx Index) ([]byte, error) {
	switch x := idx.(type) {
	case *Auto:
		return x.MarshalBinary()
	case *HNSW:
		return x.MarshalBinary()
	case *Exact:
		return x.MarshalBinary()
	}
	return nil, fmt.Errorf("ann: marshal: unsupported index type %T", idx)
}
