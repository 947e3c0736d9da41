package vault

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// state is the vault's contents in RAM. It is the vaultfmt.Handler: the
// container replays the file into it on open and feeds it other processes'
// writes; the vault applies its own writes to it after they are durable.
type state struct {
	v         *Vault
	records   map[string]*Record
	relations map[string]*Relation
	audit     auditChain
	maxSeq    uint64
	index     *index
	// loading is true while a full replay is under way: records are only
	// collected, and settle indexes them all at once (much faster than one
	// by one).
	loading bool
	// segParts are the index segment's parts (§3.5) a full replay found in
	// the payload, until PayloadEnd uses or drops them; segErr says why the
	// last one was not used.
	segParts map[vaultfmt.ID][]byte
	segErr   error
	// segUsed: the engine of the last full replay came from a segment.
	segUsed bool
	// lastCheckpoint is when this handle last checkpointed while writing
	// (or first considered it).
	lastCheckpoint time.Time
}

func newState(v *Vault) *state {
	s := &state{v: v}
	s.Reset()
	return s
}

// Reset implements vaultfmt.Handler.
func (s *state) Reset() {
	s.records = map[string]*Record{}
	s.relations = map[string]*Relation{}
	s.audit = auditChain{}
	s.maxSeq = 0
	if s.index != nil {
		s.index.engine.Close()
	}
	s.index = newIndex(s.v)
	s.loading = true
	s.segParts = nil
	s.segUsed = false
}

// settle indexes what a full replay collected; it is a no-op otherwise.
func (s *state) settle() error {
	if !s.loading {
		return nil
	}
	s.loading = false
	return s.index.build(s.records)
}

// Apply implements vaultfmt.Handler.
func (s *state) Apply(c vaultfmt.Change) error {
	id := idString(c.Item.ID)
	switch c.Op {
	case vaultfmt.OpDelete:
		s.remove(id)
		return nil
	case vaultfmt.OpPut:
	default:
		return fmt.Errorf("vault: unknown change op %d", c.Op)
	}
	switch c.Item.Kind {
	case kindRecord:
		r, err := decodeRecord(id, c.Item.Body)
		if err != nil {
			return err
		}
		s.putRecord(r)
	case kindRelation:
		rel, err := decodeRelation(id, c.Item.Body)
		if err != nil {
			return err
		}
		s.relations[id] = rel
	case kindSegment:
		if s.loading && isSegmentID(c.Item.ID) {
			if s.segParts == nil {
				s.segParts = map[vaultfmt.ID][]byte{}
			}
			s.segParts[c.Item.ID] = c.Item.Body
		}
	case kindAudit:
		e, err := decodeAudit(c.Item.Body)
		if err != nil {
			return err
		}
		s.audit.add(c.Item.ID, e)
	}
	// Unknown kinds come from a newer version; they stay in the file
	// untouched.
	return nil
}

func (s *state) putRecord(r *Record) {
	old, had := s.records[r.ID]
	s.records[r.ID] = r
	s.maxSeq = max(s.maxSeq, r.Seq)
	if s.loading {
		return
	}
	if had {
		s.index.remove(old)
	}
	if r.Live() {
		s.index.add(r)
	}
}

func (s *state) remove(id string) {
	if r, ok := s.records[id]; ok {
		if !s.loading {
			s.index.remove(r)
		}
		delete(s.records, id)
	}
	delete(s.relations, id)
	if raw, ok := parseID(id); ok && isAuditID(raw) {
		delete(s.audit.entries, binary.BigEndian.Uint64(raw[8:]))
	}
}
