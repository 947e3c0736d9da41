package ann

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// decoder reads little-endian values with bounds checks from bytes that
// may come in consecutive parts (a vault stores a large index split over
// several items); the first shortfall sticks, so callers check once.
type decoder struct {
	b    []byte   // the unread bytes of the current part
	more [][]byte // the parts after it
	left uint64   // unread bytes in b and more
	// join holds a value that straddles two parts, valid until the
	// next take.
	join []byte
	err  error
}

func newDecoder(parts [][]byte) *decoder {
	d := &decoder{more: parts}
	for _, p := range parts {
		d.left += uint64(len(p))
	}
	d.nextPart()
	return d
}

// nextPart moves to the next non-empty part, if b is used up.
func (d *decoder) nextPart() {
	for len(d.b) == 0 && len(d.more) > 0 {
		d.b, d.more = d.more[0], d.more[1:]
	}
}

// take returns the next n bytes, valid until the next take. Only small
// values may straddle two parts (they are copied); [decoder.copyTo]
// reads large runs.
func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > d.left {
		d.err = fmt.Errorf("%w: truncated", ErrCorrupt)
		return nil
	}
	d.left -= n
	if n <= uint64(len(d.b)) {
		out := d.b[:n]
		d.b = d.b[n:]
		d.nextPart()
		return out
	}
	d.join = d.join[:0]
	for uint64(len(d.join)) < n {
		c := min(uint64(len(d.b)), n-uint64(len(d.join)))
		d.join = append(d.join, d.b[:c]...)
		d.b = d.b[c:]
		d.nextPart()
	}
	return d.join
}

// each passes the next n bytes to fn in the pieces the parts hold them in,
// each with its offset in the run.
func (d *decoder) each(n uint64, fn func(off int, b []byte)) {
	if d.err != nil {
		return
	}
	if n > d.left {
		d.err = fmt.Errorf("%w: truncated", ErrCorrupt)
		return
	}
	d.left -= n
	off := 0
	for n > 0 {
		c := min(uint64(len(d.b)), n)
		fn(off, d.b[:c])
		off += int(c)
		n -= c
		d.b = d.b[c:]
		d.nextPart()
	}
}

func (d *decoder) u8() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if b := d.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Unmarshal restores an index from [Marshal]'s bytes: an [*Exact], an
// [*HNSW], or an [*Auto] when the bytes came from one. It checks every
// count, id and value before using it and never panics on bad input; it
// returns an error wrapping [ErrCorrupt] instead. The index holds none of
// b's memory.
func Unmarshal(b []byte) (Index, error) { return UnmarshalParts([][]byte{b}) }

// UnmarshalParts is [Unmarshal] of the bytes parts holds one after the
// other, read where they are: a caller holding the index split in pieces
// need not join them first (at 100,000 vectors that was a 50 MB copy).
func UnmarshalParts(parts [][]byte) (Index, error) {
	d := newDecoder(parts)
	h, err := readHeader(d)
	if err != nil {
		return nil, err
	}
	st, keys, err := readRows(d, h)
	if err != nil {
		return nil, err
	}
	var idx Index
	switch h.kind {
	case kindExact:
		if idx, err = restoreExact(h, st, keys); err != nil {
			return nil, err
		}
	case kindHNSW:
		if idx, err = readGraph(d, h, st, keys); err != nil {
			return nil, err
		}
	}
	if d.left != 0 {
		return nil, corrupt("%d trailing bytes", d.left)
	}
	if h.flags&flagAuto == 0 {
		return idx, nil
	}
	a := &Auto{dim: h.dim, opts: h.opts}
	if e, ok := idx.(*Exact); ok {
		a.exact = e
		a.maybeBuild()
	} else {
		a.hnsw = idx.(*HNSW)
	}
	return a, nil
}

func readHeader(d *decoder) (header, error) {
	if string(d.take(4)) != magic {
		return header{}, corrupt("bad magic")
	}
	if v := d.u8(); v != formatV1 {
		return header{}, corrupt("unknown version %d", v)
	}
	var h header
	h.kind, h.storage, h.flags = d.u8(), d.u8(), d.u8()
	h.dim = int(d.u32())
	h.opts.HNSWThreshold = int(int32(d.u32()))
	h.opts.M = int(d.u16())
	reserved := d.u16()
	h.opts.EfConstruction = int(d.u32())
	h.opts.EfSearch = int(d.u32())
	h.opts.Seed = d.u64()
	h.rng = d.u64()
	h.n = int(d.u32())
	h.opts.Storage = Storage(h.storage)
	switch {
	case d.err != nil:
		return h, d.err
	case h.kind != kindExact && h.kind != kindHNSW:
		return h, corrupt("unknown kind %d", h.kind)
	case h.opts.Storage != Int8 && h.opts.Storage != F32:
		return h, corrupt("unknown storage %d", h.storage)
	case h.flags&^flagAuto != 0 || reserved != 0:
		return h, corrupt("unknown flags")
	case h.dim < 1 || h.dim > maxDim:
		return h, corrupt("dim %d out of range", h.dim)
	case h.opts.M < 2 || h.opts.M > maxM:
		return h, corrupt("M %d out of range", h.opts.M)
	case h.opts.EfConstruction < 1 || h.opts.EfConstruction > maxEf || h.opts.EfSearch > maxEf:
		return h, corrupt("ef out of range")
	case h.opts.Seed == 0:
		return h, corrupt("zero seed")
	}
	if h.opts.HNSWThreshold <= 0 {
		h.opts.HNSWThreshold = -1
	}
	return h, nil
}

// readRows reads the keys and vectors into a store, after checking that
// the bytes are there, so a forged count cannot force a huge allocation.
func readRows(d *decoder, h header) (store, []uint64, error) {
	n, dim := uint64(h.n), uint64(h.dim)
	per := 8 + dim*4
	if h.opts.Storage == Int8 {
		per = 8 + 4 + dim
	}
	if n*per > d.left {
		return store{}, nil, corrupt("%d vectors do not fit in %d bytes", n, d.left)
	}
	// A key listed twice is found where the keys go into the index's
	// own map (restoreExact, readGraph), not in a map of its own here.
	keys := withRoom[uint64](h.n, roomFor(h.n))
	for i := range keys {
		keys[i] = d.u64()
	}
	st := newStore(h.dim, h.opts.Storage)
	st.reserve(h.n, roomFor(h.n))
	if h.opts.Storage == Int8 {
		for i := range st.scales {
			s := math.Float32frombits(d.u32())
			if !(s >= 0) || math.IsInf(float64(s), 0) {
				return store{}, nil, corrupt("bad scale of vector %d", i)
			}
			st.scales[i] = s
		}
		raw := int8Bytes(st.i8)
		d.each(n*dim, func(off int, b []byte) { copy(raw[off:], b) })
		return st, keys, d.err
	}
	for i := range st.f32 {
		x := math.Float32frombits(d.u32())
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return store{}, nil, corrupt("non-finite value in vector %d", i/h.dim)
		}
		st.f32[i] = x
	}
	return st, keys, d.err
}

// int8Bytes is v's memory seen as bytes: an int8 is its byte in two's
// complement, which is what the format stores, so the vectors are read
// with one copy (a conversion loop took 16 ms for 100,000 × 384, the copy
// 2 ms). Not a struct cast: both element types are one byte, alignment 1.
func int8Bytes(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func restoreExact(h header, st store, keys []uint64) (*Exact, error) {
	e := &Exact{st: st, keys: keys, alive: withRoom[bool](len(keys), roomFor(len(keys))), rowOf: make(map[uint64]int, len(keys)), opts: h.opts}
	for r, k := range keys {
		e.alive[r] = true
		if e.rowOf[k] = r; len(e.rowOf) != r+1 {
			return nil, corrupt("duplicate key %d", k)
		}
	}
	return e, nil
}

func readGraph(d *decoder, h header, st store, keys []uint64) (*HNSW, error) {
	g := &HNSW{st: st, opts: h.opts, keys: keys, rng: h.rng}
	g.setM(h.opts.M)
	entry := d.u32()
	levels := d.take(uint64(h.n))
	if d.err != nil {
		return nil, d.err
	}
	if (h.n == 0) != (entry == noEntry) || (h.n > 0 && entry >= uint32(h.n)) {
		return nil, corrupt("bad entry point %d", entry)
	}
	room := roomFor(h.n)
	g.levels = withRoom[int8](h.n, room)
	g.upper = withRoom[[]uint32](h.n, room)
	g.l0 = withRoom[uint32](h.n*(g.m0+1), room*(g.m0+1))
	g.maxLevel = -1
	for i, l := range levels {
		if l > maxLevelCap {
			return nil, corrupt("level %d of node %d", l, i)
		}
		g.levels[i] = int8(l)
		g.maxLevel = max(g.maxLevel, int(l))
		if l > 0 {
			g.upper[i] = make([]uint32, int(l)*(g.m+1))
		}
	}
	if h.n > 0 {
		if int(g.levels[entry]) != g.maxLevel {
			return nil, corrupt("entry point is not on the top layer")
		}
		g.entry = entry
	}
	if err := g.readLinks(d); err != nil {
		return nil, err
	}
	var dup int
	if g.nodeOf, dup = indexKeys(keys); dup >= 0 {
		return nil, corrupt("duplicate key %d", keys[dup])
	}
	g.restoreShadow()
	return g, nil
}

// readLinks reads every node's link lists, checking each count against the
// layer's limit and each id against the nodes that exist on that layer.
func (g *HNSW) readLinks(d *decoder) error {
	n := uint32(len(g.levels))
	// mark[x] == stamp means x is already in the list being read.
	mark := make([]uint32, n)
	stamp := uint32(0)
	for i := range g.levels {
		id := uint32(i)
		for l := 0; l <= int(g.levels[i]); l++ {
			count := int(d.u16())
			if count > g.maxLinks(l) {
				return corrupt("node %d has %d links on layer %d", i, count, l)
			}
			raw := d.take(uint64(count) * 4)
			if d.err != nil {
				return d.err
			}
			b := g.linkBlock(id, l)
			b[0] = uint32(count)
			stamp++
			for j := range count {
				nb := binary.LittleEndian.Uint32(raw[4*j:])
				if nb >= n || nb == id || int(g.levels[nb]) < l {
					return corrupt("node %d links to %d on layer %d", i, nb, l)
				}
				if mark[nb] == stamp {
					return corrupt("node %d links twice to %d", i, nb)
				}
				mark[nb] = stamp
				b[1+j] = nb
			}
		}
	}
	return nil
}

// restoreShadow recomputes an F32 graph's int8 shadow, which is never
// serialised: quantisation is deterministic, so it comes back identical.
func (g *HNSW) restoreShadow() {
	g.shadow = newStore(g.st.dim, Int8)
	if g.st.storage != F32 {
		return
	}
	g.shadow.grow(g.st.rows)
	var q query
	for r := range g.st.rows {
		g.shadow.prepare(g.st.f32[r*g.st.dim:(r+1)*g.st.dim], &q)
		g.shadow.set(r, &q)
	}
}
