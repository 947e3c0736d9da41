package vault

// The index segment (FORMAT.md §3.5) is the search engine written down at
// compaction: which record holds which doc number, the literal index and
// the vector index (HNSW graph included). It is a vaultfmt derived item
// (§2.11), split into parts of at most segmentPartBytes, so an open can
// restore the engine instead of re-tokenising every claim and rebuilding
// the graph. It is a cache: one that does not match the records exactly
// is ignored and the engine is rebuilt from them.
//
//	+0   4  magic "cSEG"
//	+4   1  version 1
//	+5   3  reserved, 0
//	+8   8  epoch u64: the compaction it was written by
//	+16  8  model: first 8 bytes of the SHA-256 of the vectors' model (0: none)
//	+24  4  N u32: indexed records
//	+28  4  next u32: doc numbers are < next
//	+32     N × (record id [16] || doc u32), docs strictly ascending
//	        literal length u64 || literal index bytes (§5)
//	        vector length u64 || vector index bytes (§4); length 0: none
//
// Each part is the item body `part u16 || parts u16 || chunk`, under the
// id segmentIDPrefix || part u16 (big-endian).

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// Part of the format: do not change.
const (
	kindSegment      vaultfmt.Kind = 4
	segmentMagic                   = "cSEG"
	segmentVersion                 = 1
	segmentHeadSize                = 32
	segmentEntrySize               = 20
	segmentIDPrefix                = "\xffindex segment" // 14 bytes, then the part number
)

// segmentPartBytes is the most segment bytes one item carries. A variable
// so tests can split small segments.
var segmentPartBytes = 16 << 20

// useSegments turns restoring from segments on; tests turn it off to
// compare with the rebuild.
var useSegments = true

// errSegment marks a segment that cannot be used (the engine is rebuilt).
var errSegment = errors.New("vault: index segment")

// segment is a decoded index segment.
type segment struct {
	epoch uint64
	model [8]byte
	next  uint32
	ids   []vaultfmt.ID
	docs  []uint32
	snap  search.Snapshot
}

func (s *segment) encode() []byte {
	b := make([]byte, 0, s.encodedLen())
	s.encodeTo(func(p []byte) { b = append(b, p...) })
	return b
}

// encodedLen is the length of encode's bytes.
func (s *segment) encodedLen() int {
	n := segmentHeadSize + segmentEntrySize*len(s.ids) + 16 + len(s.snap.Literal)
	for _, p := range s.vectorParts() {
		n += len(p)
	}
	return n
}

func (s *segment) vectorParts() [][]byte {
	if s.snap.VectorParts == nil {
		return [][]byte{s.snap.Vectors}
	}
	return s.snap.VectorParts
}

// encodeTo hands the segment's bytes to put, in order, a piece at a time.
func (s *segment) encodeTo(put func([]byte)) {
	le := binary.LittleEndian
	vec := s.vectorParts()
	vecLen := 0
	for _, p := range vec {
		vecLen += len(p)
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, segmentMagic...)
	b = append(b, segmentVersion, 0, 0, 0)
	b = le.AppendUint64(b, s.epoch)
	b = append(b, s.model[:]...)
	b = le.AppendUint32(b, uint32(len(s.ids)))
	b = le.AppendUint32(b, s.next)
	for i, id := range s.ids {
		if len(b)+segmentEntrySize > cap(b) {
			put(b)
			b = b[:0]
		}
		b = append(b, id[:]...)
		b = le.AppendUint32(b, s.docs[i])
	}
	b = le.AppendUint64(b, uint64(len(s.snap.Literal)))
	put(b)
	put(s.snap.Literal)
	put(le.AppendUint64(b[:0], uint64(vecLen)))
	for _, p := range vec {
		put(p)
	}
}

// encodeParts is splitSegment(s.encode()) written straight into the
// parts: at a million memories the segment is hundreds of MB, and
// encoding it whole before cutting it into parts held it twice, three
// times with the snapshot it is encoded from.
func (s *segment) encodeParts() ([]vaultfmt.Item, error) {
	n := s.encodedLen()
	parts := max(1, (n+segmentPartBytes-1)/segmentPartBytes)
	if parts > 1<<16-1 {
		return nil, fmt.Errorf("vault: index segment of %d bytes needs too many parts", n)
	}
	items := make([]vaultfmt.Item, parts)
	p, left := -1, n
	var body []byte
	s.encodeTo(func(b []byte) {
		for len(b) > 0 {
			if body == nil || len(body) == cap(body) {
				p++
				body = make([]byte, 4, 4+min(segmentPartBytes, left))
				binary.LittleEndian.PutUint16(body, uint16(p))
				binary.LittleEndian.PutUint16(body[2:], uint16(parts))
			}
			k := min(len(b), cap(body)-len(body))
			body, b, left = append(body, b[:k]...), b[k:], left-k
			items[p] = vaultfmt.Item{ID: segmentID(p), Kind: kindSegment, Body: body}
		}
	})
	if p != parts-1 || left != 0 {
		return nil, fmt.Errorf("vault: index segment wrote %d of %d parts, %d bytes short", p+1, parts, left)
	}
	return items, nil
}

// decodeSegment checks the framing of a segment; the indexes inside are
// checked by search.Restore. The slices alias b.
func decodeSegment(b []byte) (*segment, error) { return decodeSegmentChunks([][]byte{b}) }

// decodeSegmentChunks is decodeSegment of the bytes chunks holds one after
// the other (the parts of a replay, in order), read where they lie: the
// vector index, most of a segment's bytes, is handed to the restore as the
// pieces it is in (search.Snapshot.VectorParts). What else straddles two
// chunks (the records' list, the literal index) is copied, a few MB at
// 100,000 memories, where joining the parts first copied the whole segment.
// The slices alias chunks.
func decodeSegmentChunks(chunks [][]byte) (*segment, error) {
	le := binary.LittleEndian
	r := newChunkReader(chunks)
	head := r.bytes(segmentHeadSize)
	if head == nil || string(head[:4]) != segmentMagic {
		return nil, fmt.Errorf("%w: no segment header", errSegment)
	}
	if head[4] != segmentVersion || head[5]|head[6]|head[7] != 0 {
		return nil, fmt.Errorf("%w: version %d", errSegment, head[4])
	}
	s := &segment{epoch: le.Uint64(head[8:]), next: le.Uint32(head[28:])}
	copy(s.model[:], head[16:24])
	n := uint64(le.Uint32(head[24:]))
	if n > r.left/segmentEntrySize || n > uint64(s.next) {
		return nil, fmt.Errorf("%w: %d records do not fit", errSegment, n)
	}
	list := r.bytes(n * segmentEntrySize)
	s.ids, s.docs = make([]vaultfmt.ID, n), make([]uint32, n)
	for i := range s.ids {
		e := list[i*segmentEntrySize:]
		copy(s.ids[i][:], e[:16])
		s.docs[i] = le.Uint32(e[16:])
		if s.docs[i] >= s.next || i > 0 && s.docs[i] <= s.docs[i-1] {
			return nil, fmt.Errorf("%w: doc numbers out of order or range at %d", errSegment, i)
		}
	}
	lit, err := r.blob()
	if err != nil {
		return nil, err
	}
	s.snap.Literal = joinChunks(lit)
	vec, err := r.blob()
	if err != nil {
		return nil, err
	}
	if r.left != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errSegment, r.left)
	}
	switch len(vec) {
	case 0: // no vector index
	case 1:
		s.snap.Vectors = vec[0]
	default:
		s.snap.VectorParts = vec
	}
	return s, nil
}

// chunkReader reads consecutive byte chunks as one run.
type chunkReader struct {
	chunks [][]byte // chunks[0] is the unread rest of the current one
	left   uint64   // unread bytes in all of them
}

func newChunkReader(chunks [][]byte) *chunkReader {
	r := &chunkReader{chunks: slices.Clone(chunks)} // the caller's list unchanged
	for _, c := range chunks {
		r.left += uint64(len(c))
	}
	return r
}

// pieces returns the next n bytes as the pieces of the chunks that hold
// them (none for n = 0), or nil if fewer are left.
func (r *chunkReader) pieces(n uint64) [][]byte {
	if n > r.left {
		return nil
	}
	r.left -= n
	var out [][]byte
	for n > 0 {
		c := r.chunks[0]
		k := min(uint64(len(c)), n)
		if k > 0 {
			out = append(out, c[:k])
		}
		n -= k
		if r.chunks[0] = c[k:]; len(r.chunks[0]) == 0 {
			r.chunks = r.chunks[1:]
		}
	}
	return out
}

// bytes returns the next n bytes in one slice, copied if they straddle
// chunks, or nil if fewer are left.
func (r *chunkReader) bytes(n uint64) []byte {
	if n > r.left {
		return nil
	}
	if n == 0 {
		return []byte{}
	}
	return joinChunks(r.pieces(n))
}

// blob reads a length u64 and the bytes it counts, as pieces.
func (r *chunkReader) blob() ([][]byte, error) {
	l := r.bytes(8)
	if l == nil {
		return nil, fmt.Errorf("%w: truncated", errSegment)
	}
	n := binary.LittleEndian.Uint64(l)
	if n > r.left {
		return nil, fmt.Errorf("%w: a %d-byte index overruns the segment", errSegment, n)
	}
	return r.pieces(n), nil
}

// joinChunks is the pieces as one slice: the piece itself when there is
// one, a copy when there are several, an empty slice for none.
func joinChunks(pieces [][]byte) []byte {
	switch len(pieces) {
	case 0:
		return []byte{}
	case 1:
		return pieces[0]
	}
	return bytes.Join(pieces, nil)
}

// segmentID names part p of the segment.
func segmentID(p int) vaultfmt.ID {
	var id vaultfmt.ID
	copy(id[:], segmentIDPrefix)
	binary.BigEndian.PutUint16(id[14:], uint16(p))
	return id
}

// splitSegment cuts segment bytes into items of at most segmentPartBytes.
func splitSegment(b []byte) ([]vaultfmt.Item, error) {
	parts := max(1, (len(b)+segmentPartBytes-1)/segmentPartBytes)
	if parts > 1<<16-1 {
		return nil, fmt.Errorf("vault: index segment of %d bytes needs too many parts", len(b))
	}
	items := make([]vaultfmt.Item, parts)
	for p := range items {
		chunk := b[min(p*segmentPartBytes, len(b)):min((p+1)*segmentPartBytes, len(b))]
		body := make([]byte, 4, 4+len(chunk))
		binary.LittleEndian.PutUint16(body, uint16(p))
		binary.LittleEndian.PutUint16(body[2:], uint16(parts))
		items[p] = vaultfmt.Item{ID: segmentID(p), Kind: kindSegment, Body: append(body, chunk...)}
	}
	return items, nil
}

// joinSegment puts the parts collected from a replay back together (see
// orderSegment).
func joinSegment(parts map[vaultfmt.ID][]byte) ([]byte, error) {
	chunks, err := orderSegment(parts)
	if err != nil {
		return nil, err
	}
	return bytes.Join(chunks, nil), nil
}

// orderSegment checks the parts collected from a replay, every part
// 0..parts−1 exactly once, under its own id, all agreeing on parts, and
// returns their chunks in order. It empties parts.
func orderSegment(parts map[vaultfmt.ID][]byte) ([][]byte, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: none", errSegment)
	}
	chunks := make([][]byte, len(parts))
	for id, body := range parts {
		if len(body) < 4 {
			return nil, fmt.Errorf("%w: part too short", errSegment)
		}
		p, n := int(binary.LittleEndian.Uint16(body)), int(binary.LittleEndian.Uint16(body[2:]))
		if n != len(parts) || p >= n || id != segmentID(p) || chunks[p] != nil {
			return nil, fmt.Errorf("%w: part %d of %d does not fit the %d parts found", errSegment, p, n, len(parts))
		}
		chunks[p] = body[4:]
	}
	clear(parts)
	return chunks, nil
}

// isSegmentID reports whether id names a segment part.
func isSegmentID(id vaultfmt.ID) bool { return string(id[:14]) == segmentIDPrefix }

// modelPrefix is what a segment records of the loaded model.
func (v *Vault) modelPrefix() [8]byte { return v.model }

// DerivedKind implements vaultfmt.Deriver.
func (s *state) DerivedKind() vaultfmt.Kind { return kindSegment }

// Derive implements vaultfmt.Deriver: the index segment of the engine as
// it stands. It writes none when the engine holds a record the new payload
// will not (a shred in progress: its words and vectors must not outlive
// it), or while a replay is still being collected.
func (s *state) Derive(epoch uint64, live func(vaultfmt.ID) bool) ([]vaultfmt.Item, error) {
	if s.loading {
		return nil, nil
	}
	ix := s.index
	seg := &segment{epoch: epoch, model: s.v.modelPrefix(), next: ix.next}
	type docID struct {
		doc uint32
		id  vaultfmt.ID
	}
	docs := make([]docID, 0, ix.live())
	ix.eachID(func(doc uint32, id vaultfmt.ID) { docs = append(docs, docID{doc, id}) })
	sort.Slice(docs, func(i, j int) bool { return docs[i].doc < docs[j].doc })
	for _, d := range docs {
		if d.id == (vaultfmt.ID{}) || !live(d.id) {
			return nil, nil
		}
		seg.ids, seg.docs = append(seg.ids, d.id), append(seg.docs, d.doc)
	}
	ix.engine.SettleVectors()
	snap, err := ix.engine.Snapshot()
	if err != nil {
		return nil, err
	}
	seg.snap = snap
	return seg.encodeParts()
}

// earlySegment is a segment restored as soon as its last part arrived,
// ahead of the records (a compaction writes derived items first): each
// record's vectors are then checked against the index as the record is
// decoded and given up at once, so an open never holds every record's
// vectors and the segment's bytes beside the restored index.
//
// The engine's indexes decode in the background (search.RestoreIndexesAsync)
// while the record table and the records' frames are opened: the restore
// was a third of an open at 100,000 memories, with nothing else going on.
// Until wait has returned nil the engine is only held (the records the
// table gives point at it); anything that reads it waits first.
type earlySegment struct {
	seg    *segment // its snapshot bytes dropped once restored
	engine *search.Engine
	wait   func() error
	// at[doc] is the index in seg.ids of the record indexed under doc,
	// −1 for none: filled in one pass over the segment's list in doc
	// order, where a map of ids to docs (the first way to find a doc) was
	// a tenth of an open's serial work at 1,000,000 memories.
	at []int32
	// docs maps ids to docs, made the first time an id is looked up
	// whose doc the caller could not guess (docOf).
	docs func() map[vaultfmt.ID]uint32
}

// docAt reports whether doc holds the record id, and is one.
func (e *earlySegment) docAt(doc uint32, id vaultfmt.ID) bool {
	if int64(doc) >= int64(len(e.at)) {
		return false
	}
	j := e.at[doc]
	return j >= 0 && e.seg.ids[j] == id
}

// docOf is the doc of id in the segment.
func (e *earlySegment) docOf(id vaultfmt.ID) (uint32, bool) {
	doc, ok := e.docs()[id]
	return doc, ok
}

// close waits for the restore and closes the engine.
func (e *earlySegment) close() {
	_ = e.wait()
	e.engine.Close()
}

// collectSegmentPart keeps a segment part of a full replay, and restores
// the segment early once all its parts are in.
func (s *state) collectSegmentPart(id vaultfmt.ID, body []byte) {
	if s.segParts == nil {
		s.segParts = map[vaultfmt.ID][]byte{}
	}
	s.segParts[id] = body
	if s.early != nil || s.segErr != nil || !useSegments || len(body) < 4 ||
		int(binary.LittleEndian.Uint16(body[2:])) != len(s.segParts) {
		return
	}
	parts := s.segParts
	s.segParts = nil
	seg, dim, err := s.decodeSegmentParts(parts)
	if err != nil {
		s.segErr = err
		return
	}
	engine, wait := search.RestoreIndexesAsync(dim, seg.snap, s.v.engineOptions())
	seg.snap = search.Snapshot{} // the restore holds its own reference
	at := make([]int32, seg.next)
	for i := range at {
		at[i] = -1
	}
	for i, doc := range seg.docs {
		at[doc] = int32(i) // decodeSegmentChunks checked doc < next
	}
	docs := sync.OnceValue(func() map[vaultfmt.ID]uint32 {
		m := make(map[vaultfmt.ID]uint32, len(seg.ids))
		for i, id := range seg.ids {
			m[id] = seg.docs[i]
		}
		return m
	})
	s.early = &earlySegment{seg: seg, engine: engine, wait: wait, at: at, docs: docs}
}

// shareEarly gives a record's int8 windows up to the early segment's index
// when it holds them byte for byte; PayloadEnd checks the rest.
func (s *state) shareEarly(r *Record) {
	e := s.early
	vs := r.Vectors
	if e == nil || !r.Live() || !s.v.hasCurrentVectors(r) || vs.F32 != nil || len(vs.I8) == 0 {
		return
	}
	if e.wait() != nil {
		return // PayloadEnd drops the segment
	}
	id, ok := parseID(r.ID)
	if !ok {
		return
	}
	if doc, ok := e.docOf(id); ok {
		vs.shareWithIndex(e.engine, doc)
	}
}

// PayloadEnd implements vaultfmt.PayloadEnder: with the payload's records
// collected, a segment written by the same compaction replaces the build
// that settle would do, and the journal is then applied change by change.
// A segment that does not fit is dropped and the build happens as before.
func (s *state) PayloadEnd(epoch uint64) error {
	parts, early := s.segParts, s.early
	s.segParts, s.early, s.tableParts = nil, nil, nil
	if !s.loading {
		return nil
	}
	var restoreErr error
	if early != nil {
		if err := early.wait(); err != nil {
			restoreErr = fmt.Errorf("%w: %w", errSegment, err)
		}
	}
	if err := s.tableEnd(epoch); err != nil {
		if early != nil {
			early.engine.Close()
		}
		return err
	}
	if t := s.table; t != nil && t.skipping {
		// The rows cover the payload's records exactly: they answer for
		// them from now on (a refusal below replays the file again).
		s.records.adoptTable(t, early.engine)
	}
	var seg *segment
	var engine *search.Engine
	var err error
	switch {
	case early != nil && len(parts) > 0:
		seg, engine, err = early.seg, early.engine, fmt.Errorf("%w: segment parts after the whole segment", errSegment)
	case early != nil:
		seg, engine, err = early.seg, early.engine, restoreErr
	case len(parts) > 0 && useSegments && s.segErr == nil:
		seg, engine, err = s.openSegment(parts)
	default:
		return nil
	}
	var ix *index
	if err == nil {
		ix, err = s.adoptSegment(epoch, seg, engine)
	}
	if err != nil {
		s.segErr = err
		if s.table != nil && s.table.skipping {
			// The records the table gave hold their vectors only in
			// this engine: replay again, opening them.
			if engine != nil {
				engine.Close()
			}
			return s.tableRefused(err)
		}
		if engine != nil {
			s.unshare(engine)
			engine.Close()
		}
		return nil
	}
	s.index.engine.Close()
	s.index, s.loading, s.segUsed, s.segEarly = ix, false, true, early != nil
	if t := s.table; t != nil && t.skipping {
		s.tableUsed, s.tableRecords, s.tableAudits = true, t.n, t.na
	}
	s.table = nil
	return nil
}

// openSegment decodes a segment and restores its two indexes.
func (s *state) openSegment(parts map[vaultfmt.ID][]byte) (*segment, *search.Engine, error) {
	seg, dim, err := s.decodeSegmentParts(parts)
	if err != nil {
		return nil, nil, err
	}
	engine, err := search.RestoreIndexes(dim, seg.snap, s.v.engineOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errSegment, err)
	}
	seg.snap = search.Snapshot{}
	return seg, engine, nil
}

// decodeSegmentParts orders and decodes a segment's parts and checks it is of the
// loaded model; dim is the vector dimension to restore it with.
func (s *state) decodeSegmentParts(parts map[vaultfmt.ID][]byte) (*segment, int, error) {
	chunks, err := orderSegment(parts)
	if err != nil {
		return nil, 0, err
	}
	seg, err := decodeSegmentChunks(chunks)
	if err != nil {
		return nil, 0, err
	}
	v := s.v
	if seg.model != v.modelPrefix() {
		return nil, 0, fmt.Errorf("%w: vectors of another model", errSegment)
	}
	dim := 0
	if v.enc != nil {
		dim = v.enc.Info().Dim
	} else {
		seg.snap.Vectors, seg.snap.VectorParts = nil, nil
	}
	return seg, dim, nil
}

// unshare takes back the windows that records gave up to engine, before
// it is thrown away.
func (s *state) unshare(engine *search.Engine) {
	for _, r := range s.records.all() {
		if vs := r.Vectors; vs != nil && vs.engine == engine {
			vs.reclaim()
		}
	}
}

// adoptSegment builds the index from a restored segment, checking that it
// covers exactly the live records collected, with their vectors byte for
// byte (those given up early were checked then).
func (s *state) adoptSegment(epoch uint64, seg *segment, engine *search.Engine) (*index, error) {
	v := s.v
	if seg.epoch != epoch {
		return nil, fmt.Errorf("%w: written at epoch %d, the payload is epoch %d", errSegment, seg.epoch, epoch)
	}
	set := &s.records
	live, liveRows := 0, 0
	for _, r := range set.m {
		if r.Live() {
			live++
		}
	}
	if t := set.t; t != nil {
		for i, out := range set.out {
			if !out && !t.superseded[i] {
				liveRows++
			}
		}
	}
	live += liveRows
	if live != len(seg.ids) {
		return nil, fmt.Errorf("%w: covers %d records, the payload has %d", errSegment, len(seg.ids), live)
	}
	ix := newIndex(v, set)
	// The maps ready for the records that are not rows, so a restore
	// fills them without growing them step by step.
	ix.docOf, ix.recOf = make(map[string]uint32, live-liveRows), make(map[uint32]*Record, live-liveRows)
	ix.next = seg.next
	if t := set.t; t != nil {
		// The table's rows are indexed as rows (index.rows), with no
		// *Record built and no map entry each.
		ix.tab, ix.rows, ix.rowDoc = t, make([]int32, seg.next), make([]uint32, t.n)
		for i := range ix.rows {
			ix.rows[i] = -1
		}
		for i := range ix.rowDoc {
			ix.rowDoc[i] = tableNoDoc
		}
	}
	// hint[doc] is the row whose doc column names doc: the row of the
	// record there, unless the ids differ (checked), without a search.
	var hint []int32
	if set.t != nil {
		hint = set.t.docRow
	}
	meta := make([]search.DocMeta, len(seg.ids))
	// recs[i] is the record of seg.ids[i] when it is one, not a row: the
	// checks below walk it in doc order instead of probing the maps
	// again. rowOf[i] is the table row of seg.ids[i] when it is a row
	// (live or not: checked below), else −1.
	recs := make([]*Record, len(seg.ids))
	rowOf := make([]int32, len(seg.ids))
	// Finding each record's row or record and its metadata only reads, so
	// it is done on every core; the checks and the index's own tables
	// after it, in one pass: this was the longest step of an open at
	// 100,000 memories that nothing else ran beside.
	windows := inParts(len(seg.ids), func(lo, hi int) int {
		windows := 0
		var hexID [32]byte
		for i := lo; i < hi; i++ {
			id, doc := seg.ids[i], seg.docs[i]
			rowOf[i] = -1
			var r *Record
			if len(set.m) > 0 {
				hex.Encode(hexID[:], id[:])
				r = set.m[string(hexID[:])] // no allocation for the lookup
			}
			if r == nil && set.t != nil {
				var row int
				if int64(doc) < int64(len(hint)) && hint[doc] >= 0 && bytes.Equal(set.t.id(int(hint[doc])), id[:]) {
					row = int(hint[doc])
				} else {
					row = set.t.row(id)
				}
				if row >= 0 && !set.out[row] {
					rowOf[i] = int32(row)
					meta[i] = set.t.meta(row)
					// Its windows are the engine's under this doc:
					// openTable checked the doc against the segment's.
					windows += set.t.window(row)
					continue
				}
			}
			recs[i] = r
			if r != nil && r.Live() {
				meta[i] = metaOf(r)
				if v.hasCurrentVectors(r) {
					windows += r.Vectors.Len()
				}
			}
		}
		return windows
	})
	// Namespaces counted a run at a time: the rows of one namespace
	// mostly follow each other.
	var runNS string
	runLen := 0
	for i, id := range seg.ids {
		doc := seg.docs[i]
		if row := int(rowOf[i]); row >= 0 {
			// A row: live, not listed before, indexed under doc.
			if set.t.superseded[row] {
				ix.engine.Close()
				return nil, fmt.Errorf("%w: record %x is not live", errSegment, id)
			}
			if ix.rowDoc[row] != tableNoDoc || int64(doc) >= int64(len(ix.rows)) || ix.rows[doc] >= 0 {
				ix.engine.Close()
				return nil, fmt.Errorf("%w: record %x is listed twice", errSegment, id)
			}
			ix.rows[doc], ix.rowDoc[row] = int32(row), doc
			ix.tabled++
			if ns := meta[i].Namespace; ns != runNS {
				if runLen > 0 {
					ix.countNamespace(runNS, runLen)
				}
				runNS, runLen = ns, 0
			}
			runLen++
			continue
		}
		r := recs[i]
		if r == nil || !r.Live() {
			ix.engine.Close()
			return nil, fmt.Errorf("%w: record %x is not live", errSegment, id)
		}
		// One map operation, not a lookup and then a store: a record
		// listed twice leaves the map short of an entry.
		if ix.docOf[r.ID] = doc; len(ix.docOf) != i+1-ix.tabled {
			ix.engine.Close()
			return nil, fmt.Errorf("%w: record %x is listed twice", errSegment, id)
		}
		ix.recOf[doc] = r
		ix.countNamespace(r.Namespace, +1)
	}
	if runLen > 0 {
		ix.countNamespace(runNS, runLen)
	}
	for doc, i := uint32(0), 0; doc < seg.next; doc++ {
		if i < len(seg.docs) && seg.docs[i] == doc {
			i++
			continue
		}
		ix.free = append(ix.free, doc)
	}
	ix.engine.Close()
	ix.engine = engine
	if err := engine.AttachMetaDocs(seg.docs, meta); err != nil {
		return nil, fmt.Errorf("%w: %w", errSegment, err)
	}
	if got := engine.VectorCount(); got != windows {
		return nil, fmt.Errorf("%w: %d vectors, the records have %d", errSegment, got, windows)
	}
	for i, r := range recs {
		if r == nil {
			continue // a row
		}
		doc, vs := seg.docs[i], r.Vectors
		if !v.hasCurrentVectors(r) || vs.F32 != nil || vs.engine == engine && vs.doc == doc {
			continue
		}
		if vs.engine != nil || !engine.HoldsInt8Windows(doc, vs.I8, vs.Scales) {
			return nil, fmt.Errorf("%w: record %s's vectors differ from the index's", errSegment, r.ID)
		}
	}
	// Only once the whole segment is accepted do the remaining records
	// give up their copies: a rejected one leaves them as the rebuild
	// needs them (and unshare returns those given up early).
	for i, r := range recs {
		if r == nil {
			continue
		}
		if vs := r.Vectors; v.hasCurrentVectors(r) && vs.F32 == nil && len(vs.I8) > 0 {
			vs.I8, vs.Scales, vs.windows, vs.doc, vs.engine = nil, nil, len(vs.I8), seg.docs[i], engine
		}
	}
	if set.t != nil {
		set.t.docRow = nil // the open's hint, stale after the first write
	}
	return ix, nil
}

// inParts runs part(lo, hi) over consecutive ranges covering 0 … n−1, on
// up to four cores once n is large enough to pay for them, and returns
// the sum of what they return.
func inParts(n int, part func(lo, hi int) int) int {
	workers := min(runtime.GOMAXPROCS(0), 4, max(1, n/4096))
	if workers < 2 {
		return part(0, n)
	}
	sums := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[w] = part(n*w/workers, n*(w+1)/workers)
		}()
	}
	wg.Wait()
	total := 0
	for _, s := range sums {
		total += s
	}
	return total
}

// Checkpoints (FORMAT.md §3.5): an open restores the segment and then
// applies the journal change by change, each one a re-index (an HNSW
// insert among them), so the journal since the segment is kept short by
// compacting, which writes a new segment, once it holds
// max(checkpointFrames, live/100) frames in a vault of at least
// checkpointMinRecords records. Smaller vaults rebuild quickly anyway.
// A compaction rewrites the whole file, so a writer checkpoints at close,
// and while it keeps writing (a server, a bulk import) at most once every
// checkpointEvery: a 100,000-memory import that checkpointed after every
// 1,024 frames spent six times as long writing as importing.
var (
	checkpointFrames     = 1024
	checkpointMinRecords = 5000
	checkpointEvery      = time.Minute
)

// needsCheckpoint reports whether a journal of frames frames is due for a
// new segment.
func (s *state) needsCheckpoint(frames int) bool {
	n := s.index.live()
	return n >= checkpointMinRecords && frames >= max(checkpointFrames, n/100)
}

// checkpointDue is needsCheckpoint for a writer that keeps writing: at
// most once every checkpointEvery (the first one a period after open).
func (s *state) checkpointDue(frames int, now time.Time) bool {
	if s.lastCheckpoint.IsZero() {
		s.lastCheckpoint = now
	}
	if now.Sub(s.lastCheckpoint) < checkpointEvery || !s.needsCheckpoint(frames) {
		return false
	}
	s.lastCheckpoint = now
	return true
}
