package vault

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// recordSet is the vault's records by id. After an open that took its
// records from a record table (FORMAT.md §3.6) the table's rows stay rows:
// a *Record is built only when one is asked for (a search's results, the
// record a write touches), and kept from then on, so each record has one
// *Record however it is reached. Building all of them up front was half
// of a 100,000-memory open and a quarter of its heap.
//
// A scan (all) builds every remaining row once and drops the table: the
// set is then the plain map it was before, for export, audit, status and
// the other commands that read every record anyway.
type recordSet struct {
	m map[string]*Record // built or written records (every record once t is nil)
	t *recordTable       // rows not yet built, nil when none
	// out[i]: row i no longer answers for its id (built into m,
	// replaced or deleted); left counts the rows that still do.
	out  []bool
	left int
	// engine holds the int8 windows of the table's indexed rows.
	engine *search.Engine
}

func newRecordSet() recordSet { return recordSet{m: map[string]*Record{}} }

// adoptTable lets t's rows answer for their ids, their vectors in
// engine. A record already in m (a payload item the table did not
// cover) wins over a row of the same id.
func (s *recordSet) adoptTable(t *recordTable, engine *search.Engine) {
	t = t.slim()
	s.t, s.engine, s.out, s.left = t, engine, make([]bool, t.n), t.n
	for id := range s.m {
		if raw, ok := parseID(id); ok {
			if i := t.row(raw); i >= 0 {
				s.out[i] = true
				s.left--
			}
		}
	}
}

// rowOf is the row of id that still answers for it, or −1.
func (s *recordSet) rowOf(id string) int {
	if s.t == nil {
		return -1
	}
	raw, ok := parseID(id)
	if !ok {
		return -1
	}
	if i := s.t.row(raw); i >= 0 && !s.out[i] {
		return i
	}
	return -1
}

// get is the record of id, or nil.
func (s *recordSet) get(id string) *Record {
	if r, ok := s.m[id]; ok {
		return r
	}
	if i := s.rowOf(id); i >= 0 {
		return s.build(i)
	}
	return nil
}

// peek is get without keeping what it builds: a row is read into a
// record of the caller's own, for a reader that only looks (a search
// ranking its hits), so that a server's searches do not leave the rows
// they met built.
func (s *recordSet) peek(id string) *Record {
	if r, ok := s.m[id]; ok {
		return r
	}
	if i := s.rowOf(id); i >= 0 {
		return s.t.record(i, s.engine)
	}
	return nil
}

// rowRecord is the record of row i: built now if it still answers for its
// id, else the one built from it before.
func (s *recordSet) rowRecord(i int) *Record {
	if !s.out[i] {
		return s.build(i)
	}
	return s.m[idString(vaultfmt.ID(s.t.id(i)))]
}

// build makes row i a *Record in m. The table was checked when it was
// decoded (decodeTable), so a row always builds.
func (s *recordSet) build(i int) *Record {
	r := s.t.record(i, s.engine)
	s.m[r.ID] = r
	s.out[i] = true
	s.left--
	return r
}

func (s *recordSet) len() int { return len(s.m) + s.left }

// put stores r under its id.
func (s *recordSet) put(r *Record) {
	if i := s.rowOf(r.ID); i >= 0 {
		s.out[i] = true
		s.left--
	}
	s.m[r.ID] = r
}

// del removes the record of id.
func (s *recordSet) del(id string) {
	if i := s.rowOf(id); i >= 0 {
		s.out[i] = true
		s.left--
	}
	delete(s.m, id)
}

// all builds every remaining row and returns the records as one map (not
// to be changed but through put and del).
func (s *recordSet) all() map[string]*Record {
	if s.t != nil {
		for i := range s.out {
			if !s.out[i] {
				s.build(i)
			}
		}
		s.t, s.out, s.left, s.engine = nil, nil, 0, nil
	}
	return s.m
}

// each calls fn with every record, building none it does not have: a
// row not yet built is read into a record of its own, given to fn and
// dropped (fn must not keep it), so a walk over every record (the
// compaction's record table) costs one record at a time and leaves the
// rows rows, where all would build and keep every one of them (50 MB at
// 100,000 memories, for the rest of a server's life). It yields what all
// yields: the built records (in map order), then the remaining rows in
// table order, with the row's number (−1 for a built record). fn
// returning false stops the walk.
func (s *recordSet) each(fn func(r *Record, row int) bool) {
	for _, r := range s.m {
		if !fn(r, -1) {
			return
		}
	}
	if s.t == nil {
		return
	}
	for i, out := range s.out {
		if !out && !fn(s.t.record(i, s.engine), i) {
			return
		}
	}
}

// replaced is every replaced (not live) record, building only those
// rows: a search that asks about a past time reads the replaced records,
// and building every row for it (all) left the whole vault as *Records
// in a server from its first such search on (50 MB at 100,000 memories).
func (s *recordSet) replaced() []*Record {
	var out []*Record
	for _, r := range s.m {
		if !r.Live() {
			out = append(out, r)
		}
	}
	if s.t != nil {
		for i, out0 := range s.out {
			if !out0 && s.t.superseded[i] {
				out = append(out, s.build(i))
			}
		}
	}
	return out
}

// facet is what the search and similarity filters read of a record,
// taken from a *Record or straight from a table row without building one.
type facet struct {
	Namespace, Kind, Caller, Expires, Discovered string
	Created                                      time.Time
	Seq                                          uint64
	Reference, Live                              bool
	// vectors: the record has vectors, of model.
	vectors bool
	model   [8]byte
	r       *Record
	t       *recordTable
	row     int
}

func facetOf(r *Record) facet {
	f := facet{Namespace: r.Namespace, Kind: r.Kind, Caller: r.Caller, Expires: r.Expires, Discovered: r.Discovered,
		Created: r.Created, Seq: r.Seq, Reference: r.Reference, Live: r.Live(), r: r}
	if r.Vectors != nil {
		f.vectors, f.model = true, r.Vectors.Model
	}
	return f
}

// id is the record's id.
func (f facet) id() string {
	if f.r != nil {
		return f.r.ID
	}
	return idString(vaultfmt.ID(f.t.id(f.row)))
}

// facets calls fn with the facet of every record, building none: a scan
// that reads only the filter fields (the expiry sweep) leaves the rows
// rows.
func (s *recordSet) facets(fn func(f facet)) {
	for _, r := range s.m {
		fn(facetOf(r))
	}
	for i, out := range s.out {
		if !out {
			fn(s.t.facet(i))
		}
	}
}

// tags are the record's tags (decoded from the row for a row).
func (f facet) tags() []string {
	if f.r != nil {
		return f.r.Tags
	}
	r := &Record{}
	f.t.restFields(f.row, r)
	return r.Tags
}

// facet reads row i's filter fields.
func (t *recordTable) facet(i int) facet {
	le := binary.LittleEndian
	str := func(c int) string { return t.str(c, i) }
	return facet{Namespace: str(colNamespace), Kind: str(colKind), Caller: str(colCaller), Expires: str(colExpires),
		Discovered: str(colDiscovered), Created: fromTableTime(int64(le.Uint64(t.created[8*i:]))),
		Seq: t.seqAt(i), Reference: t.flags[i]&tableReference != 0, Live: !t.superseded[i],
		vectors: t.window(i) > 0, model: t.model, t: t, row: i}
}

// meta is row i's search metadata, as metaOf gives it for its record.
func (t *recordTable) meta(i int) search.DocMeta {
	ns := t.str(colNamespace, i)
	ref := t.flags[i]&tableReference != 0
	return search.DocMeta{
		Namespace: ns, Seq: t.seqAt(i), Importance: t.impAt(i),
		Opinion:   t.str(colKind, i) == KindOpinion,
		Affirmed:  fromTableTime(t.affirmAt(i)),
		Reference: ref || isPack(ns),
	}
}

// slim is t with only what the rows need once the table is adopted, in
// bytes of its own: the table's bytes also hold the seals and the audit
// entries (held by the audit chain), about half of them at 100,000
// memories. It finds rows by their ids alone, without the keys the open
// searched with, and keeps a column narrower when its values allow: the
// string numbers as u8 or u16 (a vault has a handful of strings, or
// hundreds with a source per file, not 65,536),
// seq as u32, importance as a byte into the few values a vault uses, and
// no affirmed column when no record has one (no opinion).
func (t *recordTable) slim() *recordTable {
	le := binary.LittleEndian
	s := &recordTable{epoch: t.epoch, model: t.model, dim: t.dim, n: t.n, strings: t.strings, superseded: t.superseded, docRow: t.docRow}
	s.seqNarrow, s.affirmNone = true, true
	switch {
	case len(t.strings) <= 1<<8:
		s.strWidth = 1
	case len(t.strings) <= 1<<16:
		s.strWidth = 2
	}
	dict := map[uint64]byte{}
	for i := 0; i < t.n; i++ {
		s.seqNarrow = s.seqNarrow && le.Uint64(t.seq[8*i:]) <= math.MaxUint32
		s.affirmNone = s.affirmNone && int64(le.Uint64(t.affirm[8*i:])) == tableZeroTime
		if bits := le.Uint64(t.imp[8*i:]); dict != nil {
			if _, ok := dict[bits]; !ok {
				if len(dict) == 256 {
					dict = nil
					continue
				}
				dict[bits] = byte(len(dict))
				s.impDict = append(s.impDict, bits)
			}
		}
	}
	if dict == nil {
		s.impDict = nil
	}
	// One block of exactly the bytes the columns take.
	seqW, affW, impW, strW := 8, 8, 8, 4
	if s.seqNarrow {
		seqW = 4
	}
	if s.affirmNone {
		affW = 0
	}
	if s.impDict != nil {
		impW = 1
	}
	if s.strWidth != 0 {
		strW = s.strWidth
	}
	fixed := 16 + seqW + 8 + affW + impW + 4 + 2 + 1 + stringCols*strW
	buf := make([]byte, 0, fixed*t.n+len(t.textOff)+len(t.textArena)+len(t.restOff)+len(t.rest))
	// col appends column c, each of its entries of width bytes rewritten by
	// put, and returns it.
	col := func(c []byte, width int, put func(dst []byte, v []byte) []byte) []byte {
		start := len(buf)
		if put == nil {
			buf = append(buf, c...)
		} else {
			for i := 0; i < len(c)/width; i++ {
				buf = put(buf, c[width*i:width*i+width])
			}
		}
		return buf[start:len(buf):len(buf)]
	}
	s.ids = col(t.ids, 16, nil)
	if s.seqNarrow {
		s.seq = col(t.seq, 8, func(dst, v []byte) []byte { return le.AppendUint32(dst, uint32(le.Uint64(v))) })
	} else {
		s.seq = col(t.seq, 8, nil)
	}
	s.created = col(t.created, 8, nil)
	if !s.affirmNone {
		s.affirm = col(t.affirm, 8, nil)
	}
	if s.impDict != nil {
		s.imp = col(t.imp, 8, func(dst, v []byte) []byte { return append(dst, dict[le.Uint64(v)]) })
	} else {
		s.imp = col(t.imp, 8, nil)
	}
	s.docs, s.windows, s.flags = col(t.docs, 4, nil), col(t.windows, 2, nil), col(t.flags, 1, nil)
	for c := range t.strCol {
		switch s.strWidth {
		case 1:
			s.strCol[c] = col(t.strCol[c], 4, func(dst, v []byte) []byte { return append(dst, byte(le.Uint32(v))) })
		case 2:
			s.strCol[c] = col(t.strCol[c], 4, func(dst, v []byte) []byte { return le.AppendUint16(dst, uint16(le.Uint32(v))) })
		default:
			s.strCol[c] = col(t.strCol[c], 4, nil)
		}
	}
	s.textOff, s.textArena, s.restOff, s.rest = col(t.textOff, 4, nil), col(t.textArena, 1, nil), col(t.restOff, 4, nil), col(t.rest, 1, nil)
	return s
}

func (t *recordTable) seqAt(i int) uint64 {
	if t.seqNarrow {
		return uint64(binary.LittleEndian.Uint32(t.seq[4*i:]))
	}
	return binary.LittleEndian.Uint64(t.seq[8*i:])
}

// impAt is row i's importance.
func (t *recordTable) impAt(i int) float64 {
	if t.impDict != nil {
		return math.Float64frombits(t.impDict[t.imp[i]])
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(t.imp[8*i:]))
}

// affirmAt is row i's affirmed time in the column's Unix milliseconds.
func (t *recordTable) affirmAt(i int) int64 {
	if t.affirmNone {
		return tableZeroTime
	}
	return int64(binary.LittleEndian.Uint64(t.affirm[8*i:]))
}

// lookup is get with the map's comma-ok.
func (s *recordSet) lookup(id string) (*Record, bool) {
	r := s.get(id)
	return r, r != nil
}
