package vault

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
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

func decodeAudit(body []byte) (*AuditEntry, error) {
	e := &AuditEntry{}
	if err := parseAudit(body, e, nil, false); err != nil {
		return nil, err
	}
	return e, nil
}

// parseAudit decodes body into e, interning through t. With checkOnly it
// leaves the strings out (they are then not allocated): what an open
// needs to validate an entry and learn its hash.
func parseAudit(body []byte, e *AuditEntry, t internTable, checkOnly bool) error {
	fr, err := newFieldReader(body)
	if err != nil {
		return err
	}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case audSeq:
			e.Seq, err = readU64(v)
		case audTime:
			e.Time, err = readTime(v)
		case audCaller:
			if !checkOnly {
				e.Caller = t.get(v)
			}
		case audOp:
			if !checkOnly {
				e.Op = t.get(v)
			}
		case audTarget:
			if !checkOnly {
				e.Target = string(v)
			}
		case audPrev:
			err = copy32(&e.Prev, v)
		case audHash:
			err = copy32(&e.Hash, v)
		case audAck:
			var s uint64
			s, err = readU64(v)
			if !checkOnly {
				e.Acknowledged = append(e.Acknowledged, s)
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

// auditChain is the chain as replayed. It keeps each entry as the body
// it was stored as, in a few large pointer-free chunks, and decodes an
// entry only when it is read (audit log, verify, packs): an open then
// neither decodes nor holds about 100,000 entry structs and their
// strings for a chain whose only part every write needs is the head's
// hash. Bodies are checked as they arrive, as the decoding did.
type auditChain struct {
	at     map[uint64]auditSpan // position (from the item id) → body
	chunks [][]byte
	dead   int // bytes of chunks no entry refers to any more
	head   uint64
	// headHash is the hash of the entry at head, when there is one.
	headHash [32]byte
	headOK   bool
}

// auditSpan is where an entry's body lies: chunks[chunk][off:off+n].
type auditSpan struct{ chunk, off, n uint32 }

// auditChunkBytes is the size of a full chunk (an entry is about 150
// bytes), auditFirstChunk that of the first.
const (
	auditChunkBytes = 256 << 10
	auditFirstChunk = 1 << 10
)

// add keeps the entry whose item id is id, after checking its body.
func (c *auditChain) add(id vaultfmt.ID, body []byte) error {
	var e AuditEntry
	if err := parseAudit(body, &e, nil, true); err != nil {
		return err
	}
	// The id carries the position; an entry whose body claims another one
	// is kept under its id so verify can report the mismatch.
	c.put(binary.BigEndian.Uint64(id[8:]), body, e.Hash)
	return nil
}

func (c *auditChain) put(pos uint64, body []byte, hash [32]byte) {
	if c.at == nil {
		c.at = map[uint64]auditSpan{}
	}
	if old, ok := c.at[pos]; ok {
		c.dead += int(old.n)
	}
	n := len(c.chunks)
	if n == 0 || len(c.chunks[n-1])+len(body) > cap(c.chunks[n-1]) {
		// Chunks start small (a batch's chain holds a few entries) and
		// double up to auditChunkBytes.
		size := auditFirstChunk
		if n > 0 {
			size = min(auditChunkBytes, 2*cap(c.chunks[n-1]))
		}
		c.chunks = append(c.chunks, make([]byte, 0, max(size, len(body))))
		n++
	}
	last := &c.chunks[n-1]
	c.at[pos] = auditSpan{chunk: uint32(n - 1), off: uint32(len(*last)), n: uint32(len(body))}
	*last = append(*last, body...)
	if pos >= c.head {
		c.head, c.headHash, c.headOK = pos, hash, true
	}
}

// append keeps an entry this process made (a batch's chain).
func (c *auditChain) append(e *AuditEntry) {
	c.put(e.Seq, encodeAudit(e), e.Hash)
}

// remove drops the entry at pos (its item was deleted); the head stays
// where it is, as the chain does not shrink.
func (c *auditChain) remove(pos uint64) {
	sp, ok := c.at[pos]
	if !ok {
		return
	}
	delete(c.at, pos)
	c.dead += int(sp.n)
	if pos == c.head {
		c.headOK = false
	}
	if c.dead > auditChunkBytes && c.dead > c.live() {
		c.repack()
	}
}

// live is the bytes of chunks entries still refer to.
func (c *auditChain) live() int {
	n := -c.dead
	for _, ch := range c.chunks {
		n += len(ch)
	}
	return n
}

// repack copies the entries still held into fresh chunks, dropping the
// bodies of removed ones.
func (c *auditChain) repack() {
	old := *c
	c.at, c.chunks, c.dead = make(map[uint64]auditSpan, len(old.at)), nil, 0
	for _, pos := range old.positions() {
		c.put(pos, old.body(old.at[pos]), [32]byte{})
	}
	c.head, c.headHash, c.headOK = old.head, old.headHash, old.headOK
}

func (c *auditChain) body(sp auditSpan) []byte {
	return c.chunks[sp.chunk][sp.off : sp.off+sp.n : sp.off+sp.n]
}

// len is the number of entries held.
func (c *auditChain) len() int { return len(c.at) }

// get decodes the entry at pos.
func (c *auditChain) get(pos uint64) (*AuditEntry, bool) {
	sp, ok := c.at[pos]
	if !ok {
		return nil, false
	}
	e, err := decodeAudit(c.body(sp))
	if err != nil {
		return nil, false // checked when added
	}
	return e, true
}

// positions lists the positions held, ascending.
func (c *auditChain) positions() []uint64 {
	out := make([]uint64, 0, len(c.at))
	for pos := range c.at {
		out = append(out, pos)
	}
	slices.Sort(out)
	return out
}

// each decodes every entry in position order and calls fn with it.
func (c *auditChain) each(fn func(pos uint64, e *AuditEntry)) {
	for _, pos := range c.positions() {
		if e, ok := c.get(pos); ok {
			fn(pos, e)
		}
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
