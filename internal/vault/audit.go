package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// AuditEntry is one link of the hash chain: who did what to which item, when.
// Hash = SHA-256(Prev ‖ body-without-hash), so editing, removing or
// reordering any entry breaks every later link.
type AuditEntry struct {
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Caller string    `json:"caller"`
	Op     string    `json:"op"`
	Target string    `json:"target,omitempty"`
	// Acknowledged lists the sequence numbers of breaks an "anchor" entry
	// (written by audit repair) accepts.
	Acknowledged []uint64 `json:"acknowledged,omitempty"`
	Prev         [32]byte `json:"-"`
	Hash         [32]byte `json:"-"`
}

// Audit field tags. Part of the format: do not change.
const (
	audSeq    = 1
	audTime   = 2
	audCaller = 3
	audOp     = 4
	audTarget = 5
	audPrev   = 6
	audAck    = 7
	audHash   = 8
)

func (e *AuditEntry) content() []byte {
	w := newFieldWriter()
	w.u64(audSeq, e.Seq)
	w.time(audTime, e.Time)
	w.str(audCaller, e.Caller)
	w.str(audOp, e.Op)
	w.str(audTarget, e.Target)
	w.bytes(audPrev, e.Prev[:])
	for _, s := range e.Acknowledged {
		w.u64(audAck, s)
	}
	return w.buf
}

func (e *AuditEntry) computeHash() [32]byte {
	return sha256.Sum256(append(e.Prev[:], e.content()...))
}

func encodeAudit(e *AuditEntry) []byte {
	w := &fieldWriter{buf: e.content()}
	w.bytes(audHash, e.Hash[:])
	return w.buf
}

// decodeAudit decodes an audit entry's body. It reads the fields with
// [auditFields.scan], which an open uses alone to check bodies without
// allocating.
func decodeAudit(body []byte) (*AuditEntry, error) {
	e := &AuditEntry{}
	f := auditFields{onAck: func(seq uint64) { e.Acknowledged = append(e.Acknowledged, seq) }}
	if err := f.scan(body); err != nil {
		return nil, err
	}
	e.Seq, e.Caller, e.Op, e.Target = f.seq, interned(f.caller), interned(f.op), string(f.target)
	if f.hasTime {
		e.Time = time.UnixMilli(int64(f.ms)).UTC()
	}
	e.Prev, e.Hash = f.prev, f.hash
	return e, nil
}

func copy32(dst *[32]byte, v []byte) error {
	if len(v) != 32 {
		return fmt.Errorf("%w: want 32 bytes, have %d", errBody, len(v))
	}
	copy(dst[:], v)
	return nil
}

// auditID is the item id of entry seq: a fixed prefix no random record id
// is expected to take, then the sequence number.
func auditID(seq uint64) vaultfmt.ID {
	var id vaultfmt.ID
	copy(id[:8], "\xffaudit\x00\x00")
	binary.BigEndian.PutUint64(id[8:], seq)
	return id
}

func isAuditID(id vaultfmt.ID) bool { return string(id[:8]) == "\xffaudit\x00\x00" }

// auditChain is the chain as replayed, one fixed-size row per entry in
// position order, with no pointer in a row for the garbage collector to
// follow. A row holds what the entry's body says: its time, its caller
// and op as numbers into small string tables, its target (a record or
// relation id) as 16 bytes, and its hash; the entry's prev is not held
// but is the hash of the row before it. The body is rebuilt from the row
// when it is read (audit log, verify, packs, the record table), byte for
// byte as stored: a row is made only for a body that its row encodes back
// to exactly. Any other body (a position it does not claim, acknowledged
// breaks, a link to something other than the entry before it, fields out
// of their canonical order) is kept as stored beside its row. At 100,000
// entries the rows are 7 MB where the bodies in chunks and a map of
// positions were 16 MB.
type auditChain struct {
	rows []chainRow
	// raw holds the bodies of the rows marked auditRaw, as stored.
	raw map[uint64][]byte
	// strs are the callers and the targets that are not ids; ops the
	// ops (a handful). strNum and opNum number them.
	strs   []string
	strNum map[string]uint32
	ops    []string
	opNum  map[string]uint16
	head   uint64
	// headHash is the hash of the entry at head, when there is one.
	headHash [32]byte
	headOK   bool
	// scratch is where add encodes a row back to compare it with the
	// body it came from.
	scratch []byte
	// lastStr and lastOp are the string and op numbered last (0: none):
	// entries in a row mostly share their caller and op, and comparing
	// with the last costs less than a map lookup.
	lastStr uint32
	lastOp  uint16
}

// chainRow is one entry: 72 bytes.
type chainRow struct {
	pos    uint64
	ms     int64    // time, Unix milliseconds (auditTime: present)
	hash   [32]byte // field 8 as stored
	target [16]byte // the target's id (auditTargetID), or its string number in the first 4 bytes (auditTargetStr)
	caller uint32   // string number (0: absent)
	op     uint16   // op number (0: absent)
	flags  uint8
}

// Row flags.
const (
	auditRaw       = 1 << iota // the body is in raw; only pos and hash are in the row
	auditTime                  // the body has a time field
	auditLinked                // prev is the previous row's hash
	auditTargetID              // target is a 32-digit lower-case hex id
	auditTargetStr             // target is another string
)

// search is the index of the first row at pos or after it.
func (c *auditChain) search(pos uint64) int {
	lo, hi := 0, len(c.rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.rows[m].pos < pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// find is the index of the row at pos.
func (c *auditChain) find(pos uint64) (int, bool) {
	if n := len(c.rows); n > 0 && c.rows[n-1].pos < pos {
		return n, false // past the end: how an open meets the entries
	}
	i := c.search(pos)
	return i, i < len(c.rows) && c.rows[i].pos == pos
}

// grow makes room for n more entries (an open that knows how many are
// coming).
func (c *auditChain) grow(n int) { c.rows = slices.Grow(c.rows, n) }

// trim gives back the room growing by doubling left unused.
func (c *auditChain) trim() {
	if cap(c.rows) > len(c.rows)+len(c.rows)/8+64 {
		c.rows = slices.Clip(slices.Clone(c.rows))
	}
}

// add keeps the entry whose item id is id, after checking its body.
func (c *auditChain) add(id vaultfmt.ID, body []byte) error {
	var f auditFields
	if err := f.scan(body); err != nil {
		return err
	}
	// The id carries the position; an entry whose body claims another one
	// is kept under its id so verify can report the mismatch.
	c.put(binary.BigEndian.Uint64(id[8:]), body, &f)
	return nil
}

// auditFields are the fields of a body as scanned, the values aliasing it.
type auditFields struct {
	seq, ms            uint64
	hasTime, acked     bool
	caller, op, target []byte
	prev, hash         [32]byte
	// onAck, when set, is given each acknowledged sequence number in
	// order (decodeAudit keeps them).
	onAck func(uint64)
}

// scan reads body's fields, aliasing it; it allocates nothing unless
// onAck does.
func (f *auditFields) scan(body []byte) error {
	fr, err := newFieldReader(body)
	if err != nil {
		return err
	}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case audSeq:
			f.seq, err = readU64(v)
		case audTime:
			f.ms, err = readU64(v)
			f.hasTime = true
		case audCaller:
			f.caller = v
		case audOp:
			f.op = v
		case audTarget:
			f.target = v
		case audPrev:
			err = copy32(&f.prev, v)
		case audHash:
			err = copy32(&f.hash, v)
		case audAck:
			var seq uint64
			seq, err = readU64(v)
			f.acked = true
			if err == nil && f.onAck != nil {
				f.onAck(seq)
			}
		}
		if err != nil {
			return fmt.Errorf("audit entry: %w", err)
		}
	}
	if fr.err != nil {
		return fmt.Errorf("audit entry: %w", fr.err)
	}
	return nil
}

func (c *auditChain) put(pos uint64, body []byte, f *auditFields) {
	i, found := c.find(pos)
	switch {
	case found && c.rows[i].hash != f.hash:
		// The next row's prev was this row's hash, which changes.
		c.detach(i + 1)
	case !found:
		// The row now at i gets a new row before it.
		c.detach(i)
		c.rows = slices.Insert(c.rows, i, chainRow{})
	}
	if found && c.rows[i].flags&auditRaw != 0 {
		delete(c.raw, pos)
	}
	c.rows[i] = c.rowOf(i, pos, body, f)
	if pos >= c.head {
		c.head, c.headHash, c.headOK = pos, f.hash, true
	}
}

// rowOf is the row at index i for the entry at pos: a row of its own
// when it encodes back to body exactly, else a raw one.
func (c *auditChain) rowOf(i int, pos uint64, body []byte, f *auditFields) chainRow {
	r := chainRow{pos: pos, hash: f.hash, flags: auditRaw}
	if f.seq != pos || f.acked {
		c.keepRaw(pos, body)
		return r
	}
	r.flags = 0
	if f.hasTime {
		r.flags |= auditTime
		r.ms = int64(f.ms)
	}
	if i > 0 && f.prev == c.rows[i-1].hash && f.prev != ([32]byte{}) {
		r.flags |= auditLinked
	}
	switch {
	case len(f.target) == 0:
	case decodeHexID(&r.target, f.target):
		r.flags |= auditTargetID
	default:
		r.flags |= auditTargetStr
		binary.LittleEndian.PutUint32(r.target[:], c.str(f.target))
	}
	if len(f.caller) > 0 {
		r.caller = c.str(f.caller)
	}
	op, ok := c.opOf(f.op)
	if !ok {
		r.flags = auditRaw
		c.keepRaw(pos, body)
		return r
	}
	r.op = op
	// The prev written is the previous row's hash or zeros, so a body
	// linked to anything else differs here too.
	c.scratch = c.encode(c.scratch[:0], i, &r)
	if !bytes.Equal(c.scratch, body) {
		r = chainRow{pos: pos, hash: f.hash, flags: auditRaw}
		c.keepRaw(pos, body)
	}
	return r
}

func (c *auditChain) keepRaw(pos uint64, body []byte) {
	if c.raw == nil {
		c.raw = map[uint64][]byte{}
	}
	c.raw[pos] = bytes.Clone(body)
}

// isHexID reports whether v is an id as idString writes it.
func isHexID(v []byte) bool {
	var id [16]byte
	return decodeHexID(&id, v)
}

// decodeHexID decodes v into id when it is an id as idString writes it
// (32 lower-case hex digits) and reports whether it was; id is undefined
// when not. One table lookup a digit: the check and the decode, two
// passes with a branch a byte, were a fifth of keeping an audit entry at
// open (two for each memory).
func decodeHexID(id *[16]byte, v []byte) bool {
	if len(v) != 32 {
		return false
	}
	var bad byte
	for i := range id {
		hi, lo := hexDigit[v[2*i]], hexDigit[v[2*i+1]]
		bad |= hi | lo
		id[i] = hi<<4 | lo&0x0f
	}
	return bad&0x80 == 0
}

// hexDigit is the value of each lower-case hex digit; 0x80 marks every
// other byte.
var hexDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = 0x80
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	return t
}()

// str numbers a caller or target; 0 is the empty string.
func (c *auditChain) str(v []byte) uint32 {
	if n := c.lastStr; n != 0 && string(v) == c.strs[n] {
		return n
	}
	if n, ok := c.strNum[string(v)]; ok {
		c.lastStr = n
		return n
	}
	if c.strNum == nil {
		c.strNum, c.strs = map[string]uint32{"": 0}, []string{""}
	}
	s := interned(v)
	n := uint32(len(c.strs))
	c.strNum[s] = n
	c.strs = append(c.strs, s)
	c.lastStr = n
	return n
}

// opOf numbers an op; false when there are too many to number.
func (c *auditChain) opOf(v []byte) (uint16, bool) {
	if n := c.lastOp; n != 0 && string(v) == c.ops[n] {
		return n, true
	}
	if n, ok := c.opNum[string(v)]; ok {
		c.lastOp = n
		return n, true
	}
	if c.opNum == nil {
		c.opNum, c.ops = map[string]uint16{"": 0}, []string{""}
		if len(v) == 0 {
			return 0, true
		}
	}
	if len(c.ops) > math.MaxUint16 {
		return 0, false
	}
	s := interned(v)
	n := uint16(len(c.ops))
	c.opNum[s] = n
	c.ops = append(c.ops, s)
	c.lastOp = n
	return n, true
}

// prevOf is the prev field of the entry in row i (not raw).
func (c *auditChain) prevOf(i int, r *chainRow) [32]byte {
	if r.flags&auditLinked != 0 {
		return c.rows[i-1].hash
	}
	return [32]byte{}
}

// targetOf is the target of row r (not raw), as written in the body.
func (c *auditChain) targetOf(r *chainRow) string {
	switch {
	case r.flags&auditTargetID != 0:
		return idString(r.target)
	case r.flags&auditTargetStr != 0:
		return c.strAt(binary.LittleEndian.Uint32(r.target[:]))
	}
	return ""
}

// strAt is string n (c.strs is nil until a string is numbered).
func (c *auditChain) strAt(n uint32) string {
	if n == 0 {
		return ""
	}
	return c.strs[n]
}

// encode appends the body of row r at index i, as encodeAudit writes it.
func (c *auditChain) encode(dst []byte, i int, r *chainRow) []byte {
	field := func(tag uint64, n int) {
		dst = binary.AppendUvarint(dst, tag)
		dst = binary.AppendUvarint(dst, uint64(n))
	}
	dst = append(dst, bodyVersion)
	field(audSeq, 8)
	dst = binary.LittleEndian.AppendUint64(dst, r.pos)
	if r.flags&auditTime != 0 {
		field(audTime, 8)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(r.ms))
	}
	if r.caller != 0 {
		s := c.strs[r.caller]
		field(audCaller, len(s))
		dst = append(dst, s...)
	}
	if r.op != 0 {
		field(audOp, len(c.ops[r.op]))
		dst = append(dst, c.ops[r.op]...)
	}
	switch {
	case r.flags&auditTargetID != 0:
		field(audTarget, 32)
		dst = hex.AppendEncode(dst, r.target[:])
	case r.flags&auditTargetStr != 0:
		s := c.strs[binary.LittleEndian.Uint32(r.target[:])]
		field(audTarget, len(s))
		dst = append(dst, s...)
	}
	prev := c.prevOf(i, r)
	field(audPrev, 32)
	dst = append(dst, prev[:]...)
	field(audHash, 32)
	return append(dst, r.hash[:]...)
}

// bodyAt is the body of the entry in row i, as stored.
func (c *auditChain) bodyAt(i int) []byte {
	r := &c.rows[i]
	if r.flags&auditRaw != 0 {
		return c.raw[r.pos]
	}
	return c.encode(nil, i, r)
}

// detach makes row i (if there is one) raw when its prev is the row
// before it, ahead of a change to that row.
func (c *auditChain) detach(i int) {
	if i < len(c.rows) && c.rows[i].flags&auditLinked != 0 {
		body := c.encode(nil, i, &c.rows[i])
		c.keepRaw(c.rows[i].pos, body)
		c.rows[i] = chainRow{pos: c.rows[i].pos, hash: c.rows[i].hash, flags: auditRaw}
	}
}

// append keeps an entry this process made (a batch's chain).
func (c *auditChain) append(e *AuditEntry) {
	if err := c.add(auditID(e.Seq), encodeAudit(e)); err != nil {
		panic(fmt.Sprintf("vault: an audit entry made here does not read back: %v", err))
	}
}

// remove drops the entry at pos (its item was deleted); the head stays
// where it is, as the chain does not shrink.
func (c *auditChain) remove(pos uint64) {
	i, ok := c.find(pos)
	if !ok {
		return
	}
	c.detach(i + 1)
	if c.rows[i].flags&auditRaw != 0 {
		delete(c.raw, pos)
	}
	c.rows = slices.Delete(c.rows, i, i+1)
	if pos == c.head {
		c.headOK = false
	}
}

// len is the number of entries held.
func (c *auditChain) len() int { return len(c.rows) }

// entryAt decodes the entry in row i.
func (c *auditChain) entryAt(i int) (*AuditEntry, bool) {
	r := &c.rows[i]
	if r.flags&auditRaw != 0 {
		e, err := decodeAudit(c.raw[r.pos])
		if err != nil {
			return nil, false // checked when added
		}
		return e, true
	}
	e := &AuditEntry{Seq: r.pos, Caller: c.strAt(r.caller), Op: c.ops[r.op], Target: c.targetOf(r),
		Prev: c.prevOf(i, r), Hash: r.hash}
	if r.flags&auditTime != 0 {
		e.Time = time.UnixMilli(r.ms).UTC()
	}
	return e, true
}

// get decodes the entry at pos.
func (c *auditChain) get(pos uint64) (*AuditEntry, bool) {
	i, ok := c.find(pos)
	if !ok {
		return nil, false
	}
	return c.entryAt(i)
}

// positions lists the positions held, ascending.
func (c *auditChain) positions() []uint64 {
	out := make([]uint64, len(c.rows))
	for i := range c.rows {
		out[i] = c.rows[i].pos
	}
	return out
}

// each decodes every entry in position order and calls fn with it.
func (c *auditChain) each(fn func(pos uint64, e *AuditEntry)) {
	for i := range c.rows {
		if e, ok := c.entryAt(i); ok {
			fn(c.rows[i].pos, e)
		}
	}
}

// eachBody calls fn with every entry's position and body as stored, in
// position order; the body is fn's to keep.
func (c *auditChain) eachBody(fn func(pos uint64, body []byte)) {
	for i := range c.rows {
		fn(c.rows[i].pos, c.bodyAt(i))
	}
}

// forkHead is an empty chain that continues this one's head, for a
// batch to extend (it needs the head's position and hash, not its body).
func (c *auditChain) forkHead() auditChain {
	return auditChain{head: c.head, headHash: c.headHash, headOK: c.headOK}
}

// next returns the entry that extends the chain (not yet stored).
func (c *auditChain) next(now time.Time, caller, op, target string) *AuditEntry {
	e := &AuditEntry{Seq: c.head + 1, Time: now, Caller: caller, Op: op, Target: target}
	if c.headOK {
		e.Prev = c.headHash
	}
	e.Hash = e.computeHash()
	return e
}

// AuditBreak is one place the chain does not hold.
type AuditBreak struct {
	Seq    uint64 `json:"seq"`
	Reason string `json:"reason"`
}

// AuditReport is the result of verifying the chain.
type AuditReport struct {
	Entries      int          `json:"entries"`
	Head         string       `json:"head"`
	OK           bool         `json:"ok"`
	Breaks       []AuditBreak `json:"breaks,omitempty"`
	Acknowledged []AuditBreak `json:"acknowledged,omitempty"`
	// Unaudited lists the records and relations that no audit entry
	// names: written around the chain (or their entry was removed).
	Unaudited []string `json:"unaudited,omitempty"`
}

// verify walks the chain from 1 to head.
func (c *auditChain) verify() AuditReport {
	// Two passes, each decoding one entry at a time, so verifying does
	// not hold the whole chain decoded.
	acked := map[uint64]bool{}
	c.each(func(_ uint64, e *AuditEntry) {
		for _, s := range e.Acknowledged {
			acked[s] = true
		}
	})
	rep := AuditReport{Entries: c.len()}
	var prev [32]byte
	for seq := uint64(1); seq <= c.head; seq++ {
		e, ok := c.get(seq)
		reason := ""
		switch {
		case !ok:
			reason = "entry missing (removed)"
		case e.Seq != seq:
			reason = fmt.Sprintf("entry claims position %d (reordered)", e.Seq)
		case e.computeHash() != e.Hash:
			reason = "entry content does not match its hash (edited)"
		case e.Prev != prev:
			reason = "link to the previous entry is broken (edited, removed or reordered before it)"
		}
		if reason != "" {
			b := AuditBreak{Seq: seq, Reason: reason}
			if acked[seq] {
				rep.Acknowledged = append(rep.Acknowledged, b)
			} else {
				rep.Breaks = append(rep.Breaks, b)
			}
		}
		if ok {
			prev = e.Hash
		}
	}
	rep.OK = len(rep.Breaks) == 0
	rep.Head = fmt.Sprintf("%x", prev)
	sort.Slice(rep.Breaks, func(i, j int) bool { return rep.Breaks[i].Seq < rep.Breaks[j].Seq })
	return rep
}

// unaudited lists, sorted, the records and relations no audit entry
// names. Every write that puts one chains an entry naming it in the same
// batch, so an item without one was written around the chain.
func (s *state) unaudited() []string {
	named := make(map[string]bool, s.audit.len())
	s.audit.each(func(_ uint64, e *AuditEntry) {
		if e.Target != "" {
			named[e.Target] = true
		}
	})
	var out []string
	for id := range s.records.all() {
		if !named[id] {
			out = append(out, id)
		}
	}
	for id := range s.relations {
		if !named[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// auditReport verifies the chain and that it names every item.
func (s *state) auditReport() AuditReport {
	rep := s.audit.verify()
	rep.Unaudited = s.unaudited()
	rep.OK = rep.OK && len(rep.Unaudited) == 0
	return rep
}
