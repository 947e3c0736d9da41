package vault

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
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

func decodeAudit(body []byte) (*AuditEntry, error) { return decodeAuditIn(body, nil) }

// decodeAuditIn is decodeAudit interning through t.
func decodeAuditIn(body []byte, t internTable) (*AuditEntry, error) {
	fr, err := newFieldReader(body)
	if err != nil {
		return nil, err
	}
	e := &AuditEntry{}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case audSeq:
			e.Seq, err = readU64(v)
		case audTime:
			e.Time, err = readTime(v)
		case audCaller:
			e.Caller = t.get(v)
		case audOp:
			e.Op = t.get(v)
		case audTarget:
			e.Target = string(v)
		case audPrev:
			err = copy32(&e.Prev, v)
		case audHash:
			err = copy32(&e.Hash, v)
		case audAck:
			var s uint64
			s, err = readU64(v)
			e.Acknowledged = append(e.Acknowledged, s)
		}
		if err != nil {
			return nil, fmt.Errorf("audit entry: %w", err)
		}
	}
	if fr.err != nil {
		return nil, fmt.Errorf("audit entry: %w", fr.err)
	}
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

// auditChain is the chain as replayed.
type auditChain struct {
	entries map[uint64]*AuditEntry
	head    uint64
}

func (c *auditChain) add(id vaultfmt.ID, e *AuditEntry) {
	if c.entries == nil {
		c.entries = map[uint64]*AuditEntry{}
	}
	// The id carries the position; an entry whose body claims another one
	// is kept under its id so verify can report the mismatch.
	pos := binary.BigEndian.Uint64(id[8:])
	c.entries[pos] = e
	c.head = max(c.head, pos)
}

// next returns the entry that extends the chain (not yet stored).
func (c *auditChain) next(now time.Time, caller, op, target string) *AuditEntry {
	e := &AuditEntry{Seq: c.head + 1, Time: now, Caller: caller, Op: op, Target: target}
	if prev, ok := c.entries[c.head]; ok {
		e.Prev = prev.Hash
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
	acked := map[uint64]bool{}
	for _, e := range c.entries {
		for _, s := range e.Acknowledged {
			acked[s] = true
		}
	}
	rep := AuditReport{Entries: len(c.entries)}
	var prev [32]byte
	for seq := uint64(1); seq <= c.head; seq++ {
		e, ok := c.entries[seq]
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
	named := make(map[string]bool, len(s.audit.entries))
	for _, e := range s.audit.entries {
		if e.Target != "" {
			named[e.Target] = true
		}
	}
	var out []string
	for id := range s.records {
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
