package vault

// The record table (FORMAT.md §3.6) is the records a compaction's payload
// holds, written down beside the index segment as one struct-of-arrays
// byte string: each column is one array over the rows, the short repeated
// strings (sources, namespaces, dates, kinds, callers) are numbers into a
// string table, the claims sit in one text arena. Each row names the
// stored version of its record by that item's seal (vaultfmt.Seal), so an
// open that holds the table asks vaultfmt not to open those items at all
// (vaultfmt.Skipper): no per-item key unwrap, decryption or decode. It is
// a cache like the segment: a table that does not cover the payload's
// records exactly is dropped and the file replayed again with every item
// opened (vaultfmt.ErrReplayOpened).
//
//	+0   4  magic "cRTB"
//	+4   1  version 1
//	+5   3  reserved, 0
//	+8   8  epoch u64
//	+16  8  model tag of the covered records' vectors (0: none)
//	+24  2  dim u16 of those vectors (0: none)
//	+26  2  reserved, 0
//	+28  4  N u32: rows, ids strictly ascending
//	+32  4  S u32: strings in the string table
//	+36  4  A u32: audit rows, ids strictly ascending
//	+40     the columns, N entries each (see recordTable), then the
//	        string table, the text arena and the rest arena; then the
//	        audit ids, seals and body arena, A entries each.
//
// Each part is the item body `part u16 || parts u16 || chunk`, under the
// id tableIDPrefix || part u16 (big-endian), of the segment's kind.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// Part of the format: do not change.
const (
	tableMagic    = "cRTB"
	tableVersion  = 1
	tableHeadSize = 40
	tableIDPrefix = "\xffrecord table\x00" // 14 bytes, then the part number
	// tableNoDoc is the doc column of a row whose record is not indexed.
	tableNoDoc = math.MaxUint32
	// tableZeroTime is the time columns' value for the zero time.
	tableZeroTime = math.MinInt64
	// Flag bits.
	tableQuarantined = 1 << 0
	tableReference   = 1 << 1
	// tableRowFixed is the bytes a row takes in the fixed-size columns:
	// id 16, seal 16, seq 8, created 8, affirmed 8, importance 8, doc 4,
	// windows 2, flags 1, six string numbers 4 each.
	tableRowFixed = 16 + 16 + 8 + 8 + 8 + 8 + 4 + 2 + 1 + 6*4
)

// The string columns, in table order.
const (
	colSource = iota
	colDiscovered
	colNamespace
	colKind
	colExpires
	colCaller
	stringCols
)

// useTable turns skipping the items a record table covers on; tests turn
// it off to compare with the full replay.
var useTable = true

var errTable = errors.New("vault: record table")

// recordTable is a decoded record table; every slice aliases the bytes
// it was decoded from.
type recordTable struct {
	epoch   uint64
	model   [8]byte
	dim     int
	n       int
	ids     []byte   // n × 16
	keys    []uint64 // keyOf each id, for row
	seals   []byte   // n × 16
	seq     []byte   // n × u64
	created []byte   // n × i64 unix ms
	affirm  []byte   // n × i64 unix ms
	imp     []byte   // n × f64 bits
	docs    []byte   // n × u32
	windows []byte   // n × u16
	flags   []byte   // n × u8
	strCol  [stringCols][]byte
	// Narrower columns a slimmed table may keep (slim): strWidth 1 or 2,
	// the string columns hold u8 or u16 numbers, not u32 (0: u32);
	// seqNarrow, seq holds u32; impDict non-nil, imp holds one byte per
	// row, a number into impDict (f64 bits); affirmNone, affirm is empty
	// as every row's is absent.
	strWidth              int
	seqNarrow, affirmNone bool
	impDict               []uint64
	strings               []string // interned
	textOff               []byte   // (n+1) × u32
	textArena             []byte
	restOff               []byte // (n+1) × u32
	rest                  []byte
	// The audit entries (kind 3) it covers.
	na       int
	audIDs   []byte // na × 16
	audKeys  []uint64
	audSeals []byte // na × 16
	audOff   []byte // (na+1) × u32
	aud      []byte

	// matched[i]: row i's item was met in the payload (and not opened);
	// audMatched the same for audit row i.
	audMatched []bool

	matched []bool
	// docRow[doc]: the row whose doc column is doc (−1: none), checked
	// against the early segment by openTable.
	docRow []int32
	// superseded[i]: row i's record is replaced (not live).
	superseded []bool
	bad        error
	// skipping: a skip predicate was handed to vaultfmt.
	skipping bool
}

func (t *recordTable) id(i int) []byte { return t.ids[16*i : 16*i+16] }

// str is row i's string in string column c.
func (t *recordTable) str(c, i int) string {
	switch t.strWidth {
	case 1:
		return t.strings[t.strCol[c][i]]
	case 2:
		return t.strings[binary.LittleEndian.Uint16(t.strCol[c][2*i:])]
	}
	return t.strings[binary.LittleEndian.Uint32(t.strCol[c][4*i:])]
}

// keyOf is an id's first 8 bytes as a big-endian number: ids ascend as
// these do, ties broken by the last 8.
func keyOf(id []byte) uint64 { return binary.BigEndian.Uint64(id) }

func (t *recordTable) doc(i int) uint32 { return binary.LittleEndian.Uint32(t.docs[4*i:]) }

// text is row i's claim.
func (t *recordTable) text(i int) string {
	le := binary.LittleEndian
	return string(t.textArena[le.Uint32(t.textOff[4*i:]):le.Uint32(t.textOff[4*i+4:])])
}

func (t *recordTable) window(i int) int { return int(binary.LittleEndian.Uint16(t.windows[2*i:])) }

// row is the row of id, or −1.
func (t *recordTable) row(id vaultfmt.ID) int { return search16(t.ids, t.keys, id) }

// auditRow is the audit row of id, or −1.
func (t *recordTable) auditRow(id vaultfmt.ID) int { return search16(t.audIDs, t.audKeys, id) }

func (t *recordTable) auditBody(i int) []byte {
	le := binary.LittleEndian
	return t.aud[le.Uint32(t.audOff[4*i:]):le.Uint32(t.audOff[4*i+4:])]
}

// search16 finds id among ids (16 bytes each, ascending; keys their
// keyOf, or nil to read them from ids), or −1.
func search16(ids []byte, keys []uint64, id vaultfmt.ID) int {
	k := keyOf(id[:])
	n := len(ids) / 16
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		var mk uint64
		if keys != nil {
			mk = keys[m]
		} else {
			mk = keyOf(ids[16*m:])
		}
		if mk < k || mk == k && bytes.Compare(ids[16*m:16*m+16], id[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < n && bytes.Equal(ids[16*lo:16*lo+16], id[:]) {
		return lo
	}
	return -1
}

// ascending checks that ids (16 bytes each) strictly ascend and returns
// their keys.
func ascending(ids []byte, what string) ([]uint64, error) {
	keys := make([]uint64, len(ids)/16)
	for i := range keys {
		keys[i] = keyOf(ids[16*i:])
		if i > 0 && bytes.Compare(ids[16*i-16:16*i], ids[16*i:16*i+16]) >= 0 {
			return nil, fmt.Errorf("%w: %s ids out of order at row %d", errTable, what, i)
		}
	}
	return keys, nil
}

// auditRow is one audit entry as written into a table.
type auditRow struct {
	id   vaultfmt.ID
	seal vaultfmt.Seal
	body []byte
}

// tableRow is one record as written into a table.
type tableRow struct {
	id   vaultfmt.ID
	seal vaultfmt.Seal
	// r is the row's record; nil: row `row` of the table being replaced,
	// read into a record of its own when it is encoded and dropped after.
	r       *Record
	row     int
	doc     uint32
	windows int
}

// encodeTable writes rows and audit rows (sorted by id here) as a record
// table.
func encodeTable(epoch uint64, model [8]byte, dim int, rows []tableRow, auds []auditRow) []byte {
	return encodeTableFrom(nil, epoch, model, dim, rows, auds)
}

// encodeTableFrom is encodeTable where a row without a record is read
// from the record set from, one row at a time, in a single pass that
// fills every column (so the rows never exist as records all at once).
func encodeTableFrom(from *recordSet, epoch uint64, model [8]byte, dim int, rows []tableRow, auds []auditRow) []byte {
	sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i].id[:], rows[j].id[:]) < 0 })
	sort.Slice(auds, func(i, j int) bool { return bytes.Compare(auds[i].id[:], auds[j].id[:]) < 0 })
	le := binary.LittleEndian
	strNum := map[string]uint32{"": 0}
	strs := []string{""}
	num := func(s string) uint32 {
		if n, ok := strNum[s]; ok {
			return n
		}
		n := uint32(len(strs))
		strNum[s] = n
		strs = append(strs, s)
		return n
	}
	n := len(rows)
	var cols [stringCols][]byte
	var textOff, restOff []byte
	var text, rest []byte
	textOff, restOff = le.AppendUint32(textOff, 0), le.AppendUint32(restOff, 0)
	// The fixed columns, in the order they are written.
	ids, seals := make([]byte, 0, n*len(vaultfmt.ID{})), make([]byte, 0, n*len(vaultfmt.Seal{}))
	seqs, created, affirmed, imps := make([]byte, 0, 8*n), make([]byte, 0, 8*n), make([]byte, 0, 8*n), make([]byte, 0, 8*n)
	docs, wins, flags := make([]byte, 0, 4*n), make([]byte, 0, 2*n), make([]byte, 0, n)
	for i := range rows {
		row := &rows[i]
		r := row.r
		if r == nil {
			r = from.t.record(row.row, from.engine)
		}
		ids, seals = append(ids, row.id[:]...), append(seals, row.seal[:]...)
		seqs = le.AppendUint64(seqs, r.Seq)
		created = le.AppendUint64(created, uint64(tableTime(r.Created)))
		affirmed = le.AppendUint64(affirmed, uint64(tableTime(r.Affirmed)))
		imps = le.AppendUint64(imps, math.Float64bits(r.Importance))
		docs, wins = le.AppendUint32(docs, row.doc), le.AppendUint16(wins, uint16(row.windows))
		var f byte
		if r.Quarantined {
			f |= tableQuarantined
		}
		if r.Reference {
			f |= tableReference
		}
		flags = append(flags, f)
		vals := [stringCols]string{r.Source, r.Discovered, r.Namespace, r.Kind, r.Expires, r.Caller}
		for c := range cols {
			cols[c] = le.AppendUint32(cols[c], num(vals[c]))
		}
		text = append(text, r.Text...)
		textOff = le.AppendUint32(textOff, uint32(len(text)))
		w := fieldWriter{buf: rest}
		w.strs(recTag, r.Tags)
		w.strs(recSupersedes, r.Supersedes)
		w.str(recSupersededBy, r.SupersededBy)
		w.strs(recTagOrigin, r.TagsOrigin)
		w.strs(recSplitInto, r.SplitInto)
		rest = w.buf
		restOff = le.AppendUint32(restOff, uint32(len(rest)))
	}
	b := make([]byte, 0, tableHeadSize+n*tableRowFixed+len(text)+len(rest)+8*n+64)
	b = append(b, tableMagic...)
	b = append(b, tableVersion, 0, 0, 0)
	b = le.AppendUint64(b, epoch)
	b = append(b, model[:]...)
	b = le.AppendUint16(b, uint16(dim))
	b = append(b, 0, 0)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, uint32(len(strs)))
	b = le.AppendUint32(b, uint32(len(auds)))
	for _, col := range [][]byte{ids, seals, seqs, created, affirmed, imps, docs, wins, flags} {
		b = append(b, col...)
	}
	for c := range cols {
		b = append(b, cols[c]...)
	}
	off := uint32(0)
	b = le.AppendUint32(b, 0)
	for _, s := range strs {
		off += uint32(len(s))
		b = le.AppendUint32(b, off)
	}
	for _, s := range strs {
		b = append(b, s...)
	}
	b = append(b, textOff...)
	b = append(b, text...)
	b = append(b, restOff...)
	b = append(b, rest...)
	for _, a := range auds {
		b = append(b, a.id[:]...)
	}
	for _, a := range auds {
		b = append(b, a.seal[:]...)
	}
	off = 0
	b = le.AppendUint32(b, 0)
	for _, a := range auds {
		off += uint32(len(a.body))
		b = le.AppendUint32(b, off)
	}
	for _, a := range auds {
		b = append(b, a.body...)
	}
	return b
}

func tableTime(t time.Time) int64 {
	if t.IsZero() {
		return tableZeroTime
	}
	return t.UnixMilli()
}

func fromTableTime(ms int64) time.Time {
	if ms == tableZeroTime {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// decodeTable checks the framing of a record table; the slices alias b.
func decodeTable(b []byte) (*recordTable, error) { return decodeTableChunks([][]byte{b}) }

// decodeTableChunks is [decodeTable] of the table whose bytes are the
// chunks one after the other (its parts, 3.6), without joining them: the
// columns and arenas alias the chunks, and only one that straddles two
// of them is copied. Joining the parts copied a 100,000-memory table's
// 32 MB into fresh memory on the open's way to its records (about 13 ms
// of CPU); the one straddler there is a 1.5 MB column.
func decodeTableChunks(chunks [][]byte) (*recordTable, error) {
	le := binary.LittleEndian
	r := newChunkReader(chunks)
	b := takeBytes(r, tableHeadSize)
	if b == nil || string(b[:4]) != tableMagic {
		return nil, fmt.Errorf("%w: no table header", errTable)
	}
	if b[4] != tableVersion || b[5]|b[6]|b[7]|b[26]|b[27] != 0 {
		return nil, fmt.Errorf("%w: version %d", errTable, b[4])
	}
	t := &recordTable{epoch: le.Uint64(b[8:]), dim: int(le.Uint16(b[24:]))}
	copy(t.model[:], b[16:24])
	n, s, na := uint64(le.Uint32(b[28:])), uint64(le.Uint32(b[32:])), uint64(le.Uint32(b[36:]))
	// Every count is checked against the bytes before anything is sized
	// by it.
	if left := r.left; n > left/(tableRowFixed+8) || s == 0 || s > left/4 || na > left/36 {
		return nil, fmt.Errorf("%w: %d rows, %d strings and %d audit rows do not fit", errTable, n, s, na)
	}
	t.n, t.na = int(n), int(na)
	take := func(k int) []byte { return takeBytes(r, k) }
	t.ids, t.seals = take(16*t.n), take(16*t.n)
	t.seq, t.created, t.affirm, t.imp = take(8*t.n), take(8*t.n), take(8*t.n), take(8*t.n)
	t.docs, t.windows, t.flags = take(4*t.n), take(2*t.n), take(t.n)
	for c := range t.strCol {
		t.strCol[c] = take(4 * t.n)
	}
	strOff := take(4 * (int(s) + 1))
	if strOff == nil {
		return nil, fmt.Errorf("%w: truncated", errTable)
	}
	strBytes, err := arena(strOff, int(s), r)
	if err != nil {
		return nil, err
	}
	if le.Uint32(strOff[4:]) != 0 {
		return nil, fmt.Errorf("%w: string 0 is not empty", errTable)
	}
	t.strings = make([]string, s)
	for i := range t.strings {
		t.strings[i] = interned(strBytes[le.Uint32(strOff[4*i:]):le.Uint32(strOff[4*i+4:])])
	}
	if t.textOff = take(4 * (t.n + 1)); t.textOff == nil {
		return nil, fmt.Errorf("%w: truncated", errTable)
	}
	if t.textArena, err = arena(t.textOff, t.n, r); err != nil {
		return nil, err
	}
	if t.restOff = take(4 * (t.n + 1)); t.restOff == nil {
		return nil, fmt.Errorf("%w: truncated", errTable)
	}
	if t.rest, err = arena(t.restOff, t.n, r); err != nil {
		return nil, err
	}
	t.audIDs, t.audSeals, t.audOff = take(16*t.na), take(16*t.na), take(4*(t.na+1))
	// take gives nil for what does not fit: the audit count was checked
	// against the bytes before the record columns took theirs.
	if t.audOff == nil || len(t.audIDs) != 16*t.na || len(t.audSeals) != 16*t.na {
		return nil, fmt.Errorf("%w: truncated", errTable)
	}
	if t.aud, err = arena(t.audOff, t.na, r); err != nil {
		return nil, err
	}
	if t.audKeys, err = ascending(t.audIDs, "audit"); err != nil {
		return nil, err
	}
	if r.left != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errTable, r.left)
	}
	if t.keys, err = ascending(t.ids, "record"); err != nil {
		return nil, err
	}
	t.superseded = make([]bool, t.n)
	for i := 0; i < t.n; i++ {
		if t.flags[i]&^(tableQuarantined|tableReference) != 0 {
			return nil, fmt.Errorf("%w: unknown flags %#x at row %d", errTable, t.flags[i], i)
		}
		for c := range t.strCol {
			if uint64(le.Uint32(t.strCol[c][4*i:])) >= s {
				return nil, fmt.Errorf("%w: string number out of range at row %d", errTable, i)
			}
		}
		if (t.doc(i) == tableNoDoc) != (t.window(i) == 0) {
			return nil, fmt.Errorf("%w: row %d has windows without a doc or a doc without windows", errTable, i)
		}
		if t.window(i) > 0 && (t.dim == 0 || t.model == [8]byte{}) {
			return nil, fmt.Errorf("%w: row %d has windows of no model", errTable, i)
		}
		if t.superseded[i], err = t.checkRest(i); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// arena checks an offset array of k+1 non-decreasing u32 starting at 0 and
// takes the bytes it spans from r.
func arena(off []byte, k int, r *chunkReader) ([]byte, error) {
	le := binary.LittleEndian
	if le.Uint32(off) != 0 {
		return nil, fmt.Errorf("%w: an arena does not start at 0", errTable)
	}
	for i := 0; i < k; i++ {
		if le.Uint32(off[4*i+4:]) < le.Uint32(off[4*i:]) {
			return nil, fmt.Errorf("%w: arena offsets decrease at %d", errTable, i)
		}
	}
	size := uint64(le.Uint32(off[4*k:]))
	if size > r.left {
		return nil, fmt.Errorf("%w: an arena of %d bytes overruns the table", errTable, size)
	}
	return takeBytes(r, int(size)), nil
}

// takeBytes is the next k bytes of r in one slice, its capacity cut to k
// (a copy only when they straddle two chunks), or nil if fewer are left.
func takeBytes(r *chunkReader, k int) []byte {
	b := r.bytes(uint64(k))
	if b == nil {
		return nil
	}
	return b[:k:k]
}

// checkRest checks row i's rest fields: well framed, and only the fields
// the rest arena may hold. It reports whether the row's record is
// superseded (not live): what a *Record built from it says.
func (t *recordTable) checkRest(i int) (superseded bool, err error) {
	le := binary.LittleEndian
	fr := fieldReader{buf: t.rest[le.Uint32(t.restOff[4*i:]):le.Uint32(t.restOff[4*i+4:])]}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case recSupersededBy:
			superseded = len(v) > 0 // the last one counts, as in setField
		case recTag, recSupersedes, recTagOrigin, recSplitInto:
		default:
			return false, fmt.Errorf("%w: row %d has field %d among the rest", errTable, i, tag)
		}
	}
	if fr.err != nil {
		return false, fmt.Errorf("%w: row %d: %w", errTable, i, fr.err)
	}
	return superseded, nil
}

// restFields decodes row i's rest fields into r. checkRest has checked
// them when the table was decoded, and the rest fields' setField cannot
// fail.
func (t *recordTable) restFields(i int, r *Record) {
	le := binary.LittleEndian
	fr := fieldReader{buf: t.rest[le.Uint32(t.restOff[4*i:]):le.Uint32(t.restOff[4*i+4:])]}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case recTag, recSupersedes, recSupersededBy, recTagOrigin, recSplitInto:
			_ = r.setField(tag, v, nil)
		}
	}
}

// record materialises row i; its vectors, when it has some, are the
// engine's windows under its doc. decodeTable has checked the row, so it
// always builds.
func (t *recordTable) record(i int, engine *search.Engine) *Record {
	le := binary.LittleEndian
	id := t.id(i)
	r := &Record{
		ID:         idString(vaultfmt.ID(id)),
		Text:       t.text(i),
		Source:     t.str(colSource, i),
		Discovered: t.str(colDiscovered, i),
		Created:    fromTableTime(int64(le.Uint64(t.created[8*i:]))),
		Namespace:  t.str(colNamespace, i),
		Importance: t.impAt(i),
		Kind:       t.str(colKind, i),
		Expires:    t.str(colExpires, i),
		Caller:     t.str(colCaller, i),
		Affirmed:   fromTableTime(t.affirmAt(i)),
		Seq:        t.seqAt(i),
	}
	f := t.flags[i]
	r.Quarantined, r.Reference = f&tableQuarantined != 0, f&tableReference != 0
	t.restFields(i, r)
	if w := t.window(i); w > 0 {
		r.Vectors = &Vectors{Model: t.model, Dim: t.dim, windows: w, doc: t.doc(i), engine: engine}
	}
	return r
}

// tableID names part p of the record table.
func tableID(p int) vaultfmt.ID {
	var id vaultfmt.ID
	copy(id[:], tableIDPrefix)
	binary.BigEndian.PutUint16(id[14:], uint16(p))
	return id
}

// isTableID reports whether id names a record table part.
func isTableID(id vaultfmt.ID) bool { return string(id[:14]) == tableIDPrefix }

// DeriveSealed implements vaultfmt.SealedDeriver: the index segment, then
// the record table of every record the new payload holds whose stored
// version is named by seal and whose vectors, if any, the segment holds.
// No segment, no table (the table's vectors live in the segment).
func (s *state) DeriveSealed(epoch uint64, live func(vaultfmt.ID) bool, seal func(vaultfmt.ID) (vaultfmt.Seal, bool)) ([]vaultfmt.Item, error) {
	items, err := s.Derive(epoch, live)
	if err != nil || len(items) == 0 {
		return items, err
	}
	v, ix := s.v, s.index
	var model [8]byte
	dim := 0
	if v.enc != nil {
		model, dim = v.modelPrefix(), v.enc.Info().Dim
	}
	// The rows are walked, not built (records.all would build and keep
	// every record): a row not yet built is looked at once here and read
	// again when encoded.
	rows := make([]tableRow, 0, s.records.len())
	s.records.each(func(r *Record, i int) bool {
		id, ok := parseID(r.ID)
		if !ok {
			return true
		}
		sl, ok := seal(id)
		if !ok {
			return true
		}
		row := tableRow{id: id, seal: sl, r: r, doc: tableNoDoc}
		if i >= 0 {
			row.r, row.row = nil, i
		}
		if vs := r.Vectors; vs != nil && vs.Len() > 0 {
			doc, indexed := ix.docOfID(r.ID)
			if dim == 0 || !v.hasCurrentVectors(r) || vs.F32 != nil || !r.Live() || !indexed || vs.Dim != dim || vs.Len() > math.MaxUint16 {
				return true // opened from its item, as without a table
			}
			row.doc, row.windows = doc, vs.Len()
		}
		rows = append(rows, row)
		return true
	})
	var auds []auditRow
	s.audit.eachBody(func(pos uint64, body []byte) {
		id := auditID(pos)
		if sl, ok := seal(id); ok {
			auds = append(auds, auditRow{id: id, seal: sl, body: body})
		}
	})
	b := encodeTableFrom(&s.records, epoch, model, dim, rows, auds)
	parts := max(1, (len(b)+segmentPartBytes-1)/segmentPartBytes)
	if parts > 1<<16-1 {
		return nil, fmt.Errorf("vault: record table of %d bytes needs too many parts", len(b))
	}
	for p := range parts {
		chunk := b[min(p*segmentPartBytes, len(b)):min((p+1)*segmentPartBytes, len(b))]
		body := make([]byte, 4, 4+len(chunk))
		binary.LittleEndian.PutUint16(body, uint16(p))
		binary.LittleEndian.PutUint16(body[2:], uint16(parts))
		items = append(items, vaultfmt.Item{ID: tableID(p), Kind: kindSegment, Body: append(body, chunk...)})
	}
	return items, nil
}

// collectTablePart keeps a record table part of a full replay.
func (s *state) collectTablePart(id vaultfmt.ID, body []byte) {
	if s.tableParts == nil {
		s.tableParts = map[vaultfmt.ID][]byte{}
	}
	s.tableParts[id] = body
}

// SkipOpen implements vaultfmt.Skipper: with the early segment restored
// and the record table decoded and consistent with it, the payload items
// the table names by their seal are not opened.
func (s *state) SkipOpen() func() func(vaultfmt.ID, vaultfmt.Kind, vaultfmt.Seal) (uint32, bool) {
	parts := s.tableParts
	s.tableParts = nil
	if !useTable || !s.loading || s.early == nil || len(parts) == 0 || s.v.enc == nil {
		return nil
	}
	t, err := s.openTable(parts)
	if err != nil {
		s.tableErr = err
		return nil
	}
	s.table, t.skipping = t, true
	// The row found here comes back with the item (Change.Cover), so
	// applyCovered does not search for it again: the searches were a
	// tenth of an open at 100,000 memories, each step a cache miss.
	// Each frame's predicate guesses its next item from its last: a
	// compaction writes the records in the order they were last written,
	// which is mostly their doc order (docs are handed out as records are
	// indexed), and the audit entries in id order, as the table's audit
	// rows. A guess is checked against the ids; a wrong one only costs
	// the lookup it would have saved.
	e := s.early
	return func() func(vaultfmt.ID, vaultfmt.Kind, vaultfmt.Seal) (uint32, bool) {
		nextDoc, nextAud := int64(-1), -1
		return func(id vaultfmt.ID, kind vaultfmt.Kind, seal vaultfmt.Seal) (uint32, bool) {
			switch kind {
			case kindRecord:
				// The row of a record with vectors is docRow of its doc
				// in the early segment (openTable checked that the row's
				// id is the segment's there); else a search finds it.
				i := -1
				if doc := uint32(nextDoc); nextDoc >= 0 && e.docAt(doc, id) {
					i = int(t.docRow[doc])
					nextDoc++
				}
				if i < 0 {
					if i = t.row(id); i >= 0 && t.window(i) > 0 {
						nextDoc = int64(t.doc(i)) + 1
					}
				}
				return uint32(max(i, 0)), i >= 0 && bytes.Equal(t.seals[16*i:16*i+16], seal[:])
			case kindAudit:
				i := nextAud
				if i < 0 || i >= t.na || !bytes.Equal(t.audIDs[16*i:16*i+16], id[:]) {
					i = t.auditRow(id)
				}
				nextAud = i + 1
				return uint32(max(i, 0)), i >= 0 && bytes.Equal(t.audSeals[16*i:16*i+16], seal[:])
			}
			return 0, false
		}
	}
}

// openTable joins and decodes the table parts and checks the table
// against the early segment: same model, and each row's doc the
// segment's doc for that record.
func (s *state) openTable(parts map[vaultfmt.ID][]byte) (*recordTable, error) {
	// orderSegment checks the part numbers against segment ids; give it
	// the parts under those.
	renamed := make(map[vaultfmt.ID][]byte, len(parts))
	for id, body := range parts {
		renamed[segmentID(int(binary.BigEndian.Uint16(id[14:])))] = body
	}
	clear(parts)
	chunks, err := orderSegment(renamed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errTable, err)
	}
	t, err := decodeTableChunks(chunks)
	if err != nil {
		return nil, err
	}
	e := s.early
	if t.model != s.v.modelPrefix() && t.dim != 0 {
		return nil, fmt.Errorf("%w: vectors of another model", errTable)
	}
	if t.dim != 0 && t.dim != s.v.enc.Info().Dim {
		return nil, fmt.Errorf("%w: vectors of %d dimensions", errTable, t.dim)
	}
	t.docRow = make([]int32, e.seg.next)
	for i := range t.docRow {
		t.docRow[i] = -1
	}
	for i := 0; i < t.n; i++ {
		if t.window(i) == 0 {
			continue
		}
		doc := t.doc(i)
		if !e.docAt(doc, vaultfmt.ID(t.id(i))) || t.docRow[doc] >= 0 {
			return nil, fmt.Errorf("%w: row %d's doc is not the segment's", errTable, i)
		}
		t.docRow[doc] = int32(i)
	}
	t.matched, t.audMatched = make([]bool, t.n), make([]bool, t.na)
	// The table says how many entries are coming: room for them at once
	// instead of growing a hundred thousand times, and for the journal
	// after it (ann.roomFor's sixteenth): the first entry beyond the room
	// grows the rows by a quarter (at 100,000 entries 6.6 MB became 8.3).
	s.audit.grow(t.na + t.na/16 + 64)
	return t, nil
}

// applyCovered puts the record or audit entry of a payload item the
// table covered, at row (of the audit rows for an audit entry): the row
// SkipOpen found for it.
func (s *state) applyCovered(id vaultfmt.ID, kind vaultfmt.Kind, row uint32) error {
	t := s.table
	if t == nil || s.early == nil {
		return fmt.Errorf("vault: item %x was left sealed without a record table", id)
	}
	if kind == kindAudit {
		i := int(row)
		if row >= uint32(t.na) || !bytes.Equal(t.audIDs[16*i:16*i+16], id[:]) || t.audMatched[i] {
			t.bad = fmt.Errorf("%w: audit item %x met twice or not in the table", errTable, id)
			return nil
		}
		t.audMatched[i] = true
		// The body is checked as an opened one is, and kept as the
		// chain's row.
		if err := s.audit.add(id, t.auditBody(i)); err != nil {
			t.bad = fmt.Errorf("%w: %w", errTable, err)
		}
		return nil
	}
	// The row is the one SkipOpen's predicate found for this id (it
	// compared the ids, or found the row by its doc, whose id openTable
	// compared), and vaultfmt hands it back with the item: comparing the
	// ids again here read one row of a column at random per record on
	// the open's serial path, a cache miss each. The seq of the rows is
	// taken at tableEnd, in one pass, for the same reason.
	i := int(row)
	if row >= uint32(t.n) || t.matched[i] {
		t.bad = fmt.Errorf("%w: item %x met twice or not in the table", errTable, id)
		return nil
	}
	t.matched[i] = true
	// The row stays a row (recordSet): PayloadEnd hands the table to the
	// record set once it has covered the payload exactly.
	return nil
}

// tableEnd checks, at the payload's end, that the table covered exactly
// what it says: written at this epoch and every row met. Not so, the
// replay is done again with every item opened.
func (s *state) tableEnd(epoch uint64) error {
	t := s.table
	if t == nil || !t.skipping {
		return nil
	}
	err := t.bad
	if err == nil && t.epoch != epoch {
		err = fmt.Errorf("%w: written at epoch %d, the payload is epoch %d", errTable, t.epoch, epoch)
	}
	if err == nil {
		for i, m := range t.matched {
			if !m {
				err = fmt.Errorf("%w: row %d's item is not in the payload as the table names it", errTable, i)
				break
			}
		}
		for i, m := range t.audMatched {
			if !m && err == nil {
				err = fmt.Errorf("%w: audit row %d's item is not in the payload as the table names it", errTable, i)
			}
		}
	}
	if err != nil {
		return s.tableRefused(err)
	}
	// Every row was met: the payload's records include them all.
	for i := 0; i < t.n; i++ {
		s.maxSeq = max(s.maxSeq, t.seqAt(i))
	}
	return nil
}

// tableRefused records why the table was not used and asks vaultfmt for
// a replay that opens every item.
func (s *state) tableRefused(err error) error {
	s.tableRetry = err
	return fmt.Errorf("%w: %w", vaultfmt.ErrReplayOpened, err)
}
