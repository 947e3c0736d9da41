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
	records   recordSet
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
	// early is the segment restored ahead of the records (see
	// earlySegment), until PayloadEnd adopts or drops it.
	early *earlySegment
	// segUsed: the engine of the last full replay came from a segment;
	// segEarly: restored ahead of the records (earlySegment).
	segUsed, segEarly bool
	// intern is the replay's intern table while loading (internTable).
	intern internTable
	// vecScratch is where a replay decodes a record's int8 windows while
	// an early segment is there to take them (see Apply).
	vecScratch []int8
	// tableParts are the record table's parts (§3.6) a full replay found,
	// until SkipOpen uses them; table is the table it decoded, tableErr
	// why it could not, tableUsed that the last full replay took its
	// records from one. tableRetry, kept across the Reset of the replay
	// it caused, is why a table was refused after items were left sealed.
	tableParts map[vaultfmt.ID][]byte
	table      *recordTable
	tableErr   error
	tableUsed  bool
	tableRetry error
	// tableRecords, tableAudits: how many items the last full replay
	// took from the table.
	tableRecords, tableAudits int
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
	s.records = newRecordSet()
	s.relations = map[string]*Relation{}
	s.audit = auditChain{}
	s.maxSeq = 0
	if s.index != nil {
		s.index.engine.Close()
	}
	if s.early != nil {
		s.early.close()
	}
	s.index = newIndex(s.v, &s.records)
	s.loading = true
	s.intern = internTable{}
	s.vecScratch = nil
	s.segParts, s.segErr, s.early = nil, nil, nil
	s.segUsed, s.segEarly = false, false
	s.tableParts, s.table, s.tableErr, s.tableUsed = nil, nil, nil, false
	s.tableRecords, s.tableAudits = 0, 0
}

// settle indexes what a full replay collected; it is a no-op otherwise.
func (s *state) settle() error {
	s.intern, s.vecScratch = nil, nil
	if !s.loading {
		return nil
	}
	s.loading = false
	s.audit.trim()
	return s.index.build(s.records.all())
}

// Apply implements vaultfmt.Handler.
func (s *state) Apply(c vaultfmt.Change) error {
	switch c.Op {
	case vaultfmt.OpDelete:
		s.remove(idString(c.Item.ID))
		return nil
	case vaultfmt.OpPut:
	default:
		return fmt.Errorf("vault: unknown change op %d", c.Op)
	}
	if c.Covered {
		if c.Item.Kind != kindRecord && c.Item.Kind != kindAudit {
			return fmt.Errorf("vault: item %x of kind %d was left sealed", c.Item.ID, c.Item.Kind)
		}
		return s.applyCovered(c.Item.ID, c.Item.Kind, c.Cover)
	}
	// The id's text only for the kinds kept under it: the covered items
	// above and the audit entries below, two for each memory, are kept
	// under their raw ids, and the text was a tenth of an open's serial
	// work at 100,000 memories.
	var id string
	if c.Item.Kind == kindRecord || c.Item.Kind == kindRelation {
		id = idString(c.Item.ID)
	}
	switch c.Item.Kind {
	case kindRecord:
		// While an early segment checks the windows of a replay's records,
		// they are decoded into one scratch buffer: those the index holds
		// byte for byte are given up at once, the rest copied out.
		var scratch *[]int8
		if s.loading && s.early != nil {
			scratch = &s.vecScratch
		}
		r, err := decodeRecordScratch(id, c.Item.Body, s.intern, scratch)
		if err != nil {
			return err
		}
		s.putRecord(r)
		if scratch != nil {
			r.Vectors.own()
		}
	case kindRelation:
		rel, err := decodeRelation(id, c.Item.Body)
		if err != nil {
			return err
		}
		s.relations[id] = rel
	case kindSegment:
		switch {
		case !s.loading:
		case isSegmentID(c.Item.ID):
			s.collectSegmentPart(c.Item.ID, c.Item.Body)
		case isTableID(c.Item.ID):
			s.collectTablePart(c.Item.ID, c.Item.Body)
		}
	case kindAudit:
		if err := s.audit.add(c.Item.ID, c.Item.Body); err != nil {
			return err
		}
	}
	// Unknown kinds come from a newer version; they stay in the file
	// untouched.
	return nil
}

func (s *state) putRecord(r *Record) {
	old := s.records.get(r.ID)
	had := old != nil
	s.records.put(r)
	s.maxSeq = max(s.maxSeq, r.Seq)
	if s.loading {
		if had && old.Vectors != nil && s.early != nil && old.Vectors.engine == s.early.engine {
			old.Vectors.reclaim()
		}
		s.shareEarly(r)
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
	if r := s.records.get(id); r != nil {
		if !s.loading {
			s.index.remove(r)
		}
		s.records.del(id)
	}
	delete(s.relations, id)
	if raw, ok := parseID(id); ok && isAuditID(raw) {
		s.audit.remove(binary.BigEndian.Uint64(raw[8:]))
	}
}
