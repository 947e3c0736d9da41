package devsync

import (
	"slices"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// The fold turns a set of operations, in any order, into one state: the
// merge rules of FORMAT.md 10.4. It is a pure function of the set, so
// every device that has seen the same operations computes the same state.

// recFold is what the operations say about one record.
type recFold struct {
	base    *vault.Record // content: the latest store or edit
	baseAt  stamp
	stored  bool
	storeAt stamp // the earliest store op: who stored this claim first

	tags       []string
	tagsAt     stamp
	tagsSet    bool
	importance float64
	impAt      stamp
	impSet     bool
	supBy      string // "" live
	supAt      stamp
	supSet     bool
	affirmed   time.Time

	dead, shred bool
}

type relFold struct {
	rel  *vault.Relation
	at   stamp
	dead bool
}

type fold struct {
	recs     map[[16]byte]*recFold
	rels     map[[16]byte]*relFold
	maxClock Clock
	bad      []string // operations that could not be read (skipped)
}

func newFold() *fold {
	return &fold{recs: map[[16]byte]*recFold{}, rels: map[[16]byte]*relFold{}}
}

func (f *fold) rec(id [16]byte) *recFold {
	r := f.recs[id]
	if r == nil {
		r = &recFold{}
		f.recs[id] = r
	}
	return r
}

func (f *fold) rel(id [16]byte) *relFold {
	r := f.rels[id]
	if r == nil {
		r = &relFold{}
		f.rels[id] = r
	}
	return r
}

// mentions reports whether any operation names id.
func (f *fold) mentions(id [16]byte) bool {
	_, a := f.recs[id]
	_, b := f.rels[id]
	return a || b
}

// add folds one operation in. Registers keep the value of the latest op by
// stamp; a tie is the same op seen twice.
func (f *fold) add(o *Op) {
	f.maxClock = f.maxClock.Max(o.Clock)
	at := o.stamp()
	switch o.Kind {
	case OpStore, OpEdit:
		r, err := vault.DecodeSyncRecord(o.Target, o.Payload)
		if err != nil {
			f.bad = append(f.bad, err.Error())
			return
		}
		rf := f.rec(o.Target)
		if rf.base == nil || rf.baseAt.less(at) {
			rf.base, rf.baseAt = r, at
		}
		if o.Kind == OpStore {
			if !rf.stored || at.less(rf.storeAt) {
				rf.stored, rf.storeAt = true, at
			}
			rf.setTags(r.Tags, at)
			rf.setImportance(r.Importance, at)
			rf.setSup(r.SupersededBy, at)
		}
		if r.Affirmed.After(rf.affirmed) {
			rf.affirmed = r.Affirmed
		}
	case OpTags:
		tags, _ := decodeTags(o.Payload)
		f.rec(o.Target).setTags(tags, at)
	case OpImportance:
		f.rec(o.Target).setImportance(decodeF64(o.Payload), at)
	case OpSupersede:
		var by [16]byte
		copy(by[:], o.Payload)
		s := ""
		if by != ([16]byte{}) {
			s = vault.IDString(by)
		}
		f.rec(o.Target).setSup(s, at)
	case OpAffirm:
		rf := f.rec(o.Target)
		if t := decodeTime(o.Payload); t.After(rf.affirmed) {
			rf.affirmed = t
		}
	case OpForget:
		f.rec(o.Target).dead = true
	case OpShred:
		rf := f.rec(o.Target)
		rf.dead, rf.shred = true, true
		// A shredded id may be a relation's; it goes too.
		if rl, ok := f.rels[o.Target]; ok {
			rl.dead = true
		}
	case OpLink:
		rel, err := vault.DecodeSyncRelation(o.Target, o.Payload)
		if err != nil {
			f.bad = append(f.bad, err.Error())
			return
		}
		rl := f.rel(o.Target)
		if rl.rel == nil || rl.at.less(at) {
			rl.rel, rl.at = rel, at
		}
	case OpUnlink:
		f.rel(o.Target).dead = true
	case OpRedacted:
		f.rec(o.Target) // mentioned; its content is gone
	}
}

func (r *recFold) setTags(tags []string, at stamp) {
	if !r.tagsSet || r.tagsAt.less(at) {
		r.tags, r.tagsAt, r.tagsSet = tags, at, true
	}
}

func (r *recFold) setImportance(x float64, at stamp) {
	if !r.impSet || r.impAt.less(at) {
		r.importance, r.impAt, r.impSet = x, at, true
	}
}

func (r *recFold) setSup(by string, at stamp) {
	if !r.supSet || r.supAt.less(at) {
		r.supBy, r.supAt, r.supSet = by, at, true
	}
}

// record is the record the operations describe, or nil when it is gone or
// its store has not arrived.
func (r *recFold) record(id [16]byte) *vault.Record {
	if r.dead || r.base == nil || !r.stored {
		return nil
	}
	c := *r.base
	c.ID = vault.IDString(id)
	c.Tags = slices.Clone(r.tags)
	c.Importance = r.importance
	c.SupersededBy = r.supBy
	c.Affirmed = r.affirmed
	c.Seq = 0
	return &c
}

// duplicates applies "the same fact stored on two devices is one memory":
// among live records of one claim key, the earliest stored stays; each
// other one gets a supersede op pointing at it, and the one that stays
// an affirm op when another was affirmed later. It returns those ops
// (without device or clock; the caller stamps and logs them).
func (f *fold) duplicates() []Op {
	type member struct {
		id [16]byte
		rf *recFold
	}
	groups := map[string][]member{}
	for id, rf := range f.recs {
		r := rf.record(id)
		if r == nil || !r.Live() || !vault.Syncable(r) {
			continue
		}
		k := vault.ClaimKey(r)
		groups[k] = append(groups[k], member{id, rf})
	}
	var ops []Op
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		win := g[0]
		for _, m := range g[1:] {
			if m.rf.storeAt.less(win.rf.storeAt) {
				win = m
			}
		}
		latest := win.rf.affirmed
		for _, m := range g {
			if m.id == win.id {
				continue
			}
			ops = append(ops, Op{Kind: OpSupersede, Target: m.id, Payload: slices.Clone(win.id[:])})
			if m.rf.affirmed.After(latest) {
				latest = m.rf.affirmed
			}
		}
		if latest.After(win.rf.affirmed) {
			ops = append(ops, Op{Kind: OpAffirm, Target: win.id, Payload: encodeTime(latest)})
		}
	}
	slices.SortFunc(ops, func(a, b Op) int {
		if c := slices.Compare(a.Target[:], b.Target[:]); c != 0 {
			return c
		}
		return int(a.Kind) - int(b.Kind)
	})
	return ops
}
