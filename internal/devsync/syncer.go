package devsync

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// Syncer ties one open vault to its sync folder: it logs the vault's own
// writes (as its vault.SyncObserver) and merges what other devices logged.
type Syncer struct {
	v    *vault.Vault
	now  func() time.Time
	dir  string
	keys *folderKeys
	id   [16]byte

	// mu guards what follows. Lock order: the vault's own lock first (a
	// write calls Committing, a merge calls plan, both under it), then mu.
	mu     sync.Mutex
	side   *sidecar
	sideFI os.FileInfo
	own    *ownLog
	cache  map[[16]byte]cachedLog
	last   Report

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

type cachedLog struct {
	fi os.FileInfo
	st *logState
}

// Report says what one merge did.
type Report struct {
	At       time.Time `json:"at"`
	Written  int       `json:"written"` // records and relations put
	Deleted  int       `json:"deleted"` // forgotten, shredded or unlinked here
	Shredded int       `json:"shredded"`
	Logged   int       `json:"logged"` // operations this merge appended to this device's log
	// Pending counts records other devices' operations name whose store
	// has not arrived yet (it is still being copied).
	Pending int `json:"pending"`
	// Copying names logs a sync engine has not finished copying (read up
	// to their last whole frame).
	Copying []string `json:"copying,omitempty"`
	// Ignored: files in the folder that were not read, and why (a device
	// not on the signed list, a damaged device entry).
	Ignored []string `json:"ignored,omitempty"`
	// Refused is the sentence of a refusal that stopped the merge.
	Refused string `json:"refused,omitempty"`
}

// Options tune a Syncer.
type Options struct {
	Now func() time.Time // nil: time.Now
}

// Attach connects v to the sync folder its sidecar names and merges what
// arrived. It returns ErrNotSynced when v has no sync folder. A merge that
// fails (a refused log, an unreachable folder) does not fail Attach: its
// error is returned with the Syncer, which then still logs local writes.
func Attach(v *vault.Vault, opts Options) (*Syncer, Report, error) {
	s, err := newSyncer(v, opts)
	if err != nil {
		return nil, Report{}, err
	}
	s.observe()
	rep, err := s.Merge()
	return s, rep, err
}

// observe makes s the vault's observer and its registered Syncer.
func (s *Syncer) observe() {
	s.v.SetSyncObserver(s)
	attached.Store(s.v, s)
}

func newSyncer(v *vault.Vault, opts Options) (*Syncer, error) {
	master, vid := v.File().MasterKey(), v.File().Header().VaultID
	side, err := loadSidecar(v.Path(), master, vid)
	if err != nil {
		return nil, err
	}
	key, err := side.openKey(master, vid)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: the sealed folder key does not open with this vault's key", ErrRefused, SidecarPath(v.Path()))
	}
	return newSyncerWith(v, opts, side, key)
}

func newSyncerWith(v *vault.Vault, opts Options, side *sidecar, folderKey []byte) (*Syncer, error) {
	keys, err := deriveFolderKeys(folderKey, side.folderID)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Syncer{v: v, now: now, dir: side.Folder, keys: keys, id: side.deviceID, side: side,
		cache: map[[16]byte]cachedLog{}}
	s.own = &ownLog{dir: side.Folder, device: side.deviceID, k: keys}
	if seen, ok := side.Seen[hex.EncodeToString(side.deviceID[:])]; ok {
		s.own.minGen = seen.Generation + 1
	}
	s.sideFI, _ = os.Stat(SidecarPath(v.Path()))
	return s, nil
}

// Folder is the sync folder; Device this device's id.
func (s *Syncer) Folder() string   { return s.dir }
func (s *Syncer) Device() [16]byte { return s.id }

// LastReport is what the latest merge of this Syncer did.
func (s *Syncer) LastReport() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Detach stops logging the vault's writes and stops a watcher.
func (s *Syncer) Detach() {
	s.v.SetSyncObserver(nil)
	attached.CompareAndDelete(s.v, s)
	s.stopWatch()
}

// reloadSidecar picks up what another process of this device wrote to the
// sidecar (its clock, the logs it has seen). The caller holds s.mu.
func (s *Syncer) reloadSidecar() error {
	fi, err := os.Stat(SidecarPath(s.v.Path()))
	if err != nil {
		return fmt.Errorf("devsync: %w: the vault's sync settings are gone (was `sync leave` run?)", err)
	}
	if s.sideFI != nil && os.SameFile(fi, s.sideFI) && fi.ModTime().Equal(s.sideFI.ModTime()) && fi.Size() == s.sideFI.Size() {
		return nil
	}
	side, err := loadSidecar(s.v.Path(), s.v.File().MasterKey(), s.v.File().Header().VaultID)
	if err != nil {
		return err
	}
	if side.folderID != s.side.folderID || side.deviceID != s.side.deviceID {
		return fmt.Errorf("devsync: the vault was joined to another sync folder meanwhile; open it again")
	}
	s.side, s.sideFI = side, fi
	return nil
}

// nextClock stamps count new local operations.
func (s *Syncer) clocks(n int) []Clock {
	c := s.side.Clock.Max(s.own.st.lastClock)
	out := make([]Clock, n)
	for i := range out {
		c = c.Tick(s.now())
		out[i] = c
	}
	return out
}

// Committing implements vault.SyncObserver: it turns a write into log
// operations and appends them (fsync) before the vault appends the write.
func (s *Syncer) Committing(changes []vault.SyncChange) error {
	var ops []Op
	for _, c := range changes {
		ops = append(ops, opsFor(c)...)
	}
	if len(ops) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reloadSidecar(); err != nil {
		return err
	}
	if err := s.own.load(); err != nil {
		return s.unreachable(err)
	}
	// An older copy of this device's own log put back by an engine would
	// fork it if appended to: refuse the write instead.
	if err := s.checkSeen(s.id, s.own.st); err != nil {
		return err
	}
	for i, c := range s.clocks(len(ops)) {
		ops[i].Device, ops[i].Clock = s.id, c
	}
	if err := s.own.append(ops); err != nil {
		return s.unreachable(err)
	}
	return nil
}

func (s *Syncer) unreachable(err error) error {
	if _, serr := os.Stat(s.dir); serr != nil {
		return fmt.Errorf("the sync folder %s is not reachable (%v): nothing was stored; mount or restore it, or run `compartment sync leave` to stop syncing", s.dir, serr)
	}
	return err
}

// opsFor is what one vault change means in the log.
func opsFor(c vault.SyncChange) []Op {
	id, ok := vault.ParseID(c.ID)
	if !ok {
		return nil
	}
	switch {
	case c.Deleted && c.WasRelation:
		return []Op{{Kind: OpUnlink, Target: id}}
	case c.Deleted:
		if c.Before != nil && !vault.Syncable(c.Before) {
			return nil
		}
		if c.Shred {
			return []Op{{Kind: OpShred, Target: id}}
		}
		return []Op{{Kind: OpForget, Target: id}}
	case c.Relation != nil:
		return []Op{{Kind: OpLink, Target: id, Payload: vault.SyncRelationBody(c.Relation)}}
	case c.Record == nil || !vault.Syncable(c.Record):
		return nil
	case c.Before == nil:
		return []Op{{Kind: OpStore, Target: id, Payload: vault.SyncRecordBody(c.Record, true)}}
	}
	a, b := c.Before, c.Record
	var ops []Op
	if a.SupersededBy != b.SupersededBy {
		var by [16]byte
		if b.SupersededBy != "" {
			by, _ = vault.ParseID(b.SupersededBy)
		}
		ops = append(ops, Op{Kind: OpSupersede, Target: id, Payload: by[:]})
	}
	if !slices.Equal(a.Tags, b.Tags) {
		ops = append(ops, Op{Kind: OpTags, Target: id, Payload: encodeTags(b.Tags)})
	}
	if a.Importance != b.Importance {
		ops = append(ops, Op{Kind: OpImportance, Target: id, Payload: encodeF64(b.Importance)})
	}
	if !a.Affirmed.Equal(b.Affirmed) {
		ops = append(ops, Op{Kind: OpAffirm, Target: id, Payload: encodeTime(b.Affirmed)})
	}
	if !sameContent(a, b) {
		ops = append(ops, Op{Kind: OpEdit, Target: id, Payload: vault.SyncRecordBody(b, true)})
	}
	return ops
}

// sameContent compares a record's own fields, leaving out the registers
// that have ops of their own, the vectors and the seq.
func sameContent(a, b *vault.Record) bool {
	x, y := *a, *b
	for _, r := range []*vault.Record{&x, &y} {
		r.Tags, r.Importance, r.SupersededBy, r.Affirmed = nil, 0, "", time.Time{}
	}
	return bytes.Equal(vault.SyncRecordBody(&x, false), vault.SyncRecordBody(&y, false))
}

// Merge folds every accepted log into the vault (FORMAT.md 10.4) in one
// batch. A refused log stops the merge: nothing is merged, and the error
// (wrapping ErrRefused) says which file and why.
func (s *Syncer) Merge() (Report, error) {
	var rep Report
	_, err := s.v.MergeSync(func(vc vault.SyncContents) (vault.SyncPlan, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		p, err := s.plan(vc, &rep)
		rep.At = s.now().UTC()
		if err != nil && errors.Is(err, ErrRefused) {
			rep.Refused = err.Error()
		}
		s.last = rep
		return p, err
	})
	return rep, err
}

// readAll reads the device list and every log, checking each against what
// this device has seen of it. The caller holds s.mu.
func (s *Syncer) readAll(rep *Report) (map[[16]byte]*logState, map[[16]byte]*Device, error) {
	roster, bad, err := readRoster(s.dir, s.keys)
	if err != nil {
		return nil, nil, s.unreachable(err)
	}
	rep.Ignored = append(rep.Ignored, bad...)
	_, logs, err := listFolder(s.dir)
	if err != nil {
		return nil, nil, s.unreachable(err)
	}
	if err := s.own.load(); err != nil {
		return nil, nil, s.unreachable(err)
	}
	out := map[[16]byte]*logState{s.id: s.own.st}
	for dev := range logs {
		if dev == s.id {
			continue
		}
		path := logPath(s.dir, dev)
		if roster[dev] == nil {
			rep.Ignored = append(rep.Ignored, fmt.Sprintf("%s comes from device %s, which is not on the folder's signed device list: it was ignored", path, shortID(dev)))
			continue
		}
		st, err := s.readCached(dev, path)
		if errors.Is(err, errIncomplete) {
			rep.Copying = append(rep.Copying, path)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if st.partial {
			rep.Copying = append(rep.Copying, path)
		}
		out[dev] = st
	}
	for dev, st := range out {
		if err := s.checkSeen(dev, st); err != nil {
			return nil, nil, err
		}
	}
	return out, roster, nil
}

func (s *Syncer) readCached(dev [16]byte, path string) (*logState, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("devsync: %w", err)
	}
	if c, ok := s.cache[dev]; ok && os.SameFile(c.fi, fi) && c.fi.Size() == fi.Size() && c.fi.ModTime().Equal(fi.ModTime()) {
		return c.st, nil
	}
	st, err := readLog(path, s.keys, dev)
	if err != nil {
		return nil, err
	}
	s.cache[dev] = cachedLog{fi, st}
	return st, nil
}

// checkSeen refuses an older copy of a log, or a fork (FORMAT.md 10.6).
func (s *Syncer) checkSeen(dev [16]byte, st *logState) error {
	seen, ok := s.side.Seen[hex.EncodeToString(dev[:])]
	if !ok {
		return nil
	}
	path := logPath(s.dir, dev)
	older := func() error {
		return refusef(path, "is an older copy of device %s's log (generation %d with %d operations; this device has already merged generation %d with %d): a backup or a stale copy was put back; let the sync engine bring the newer one", shortID(dev), st.generation, st.frames(), seen.Generation, seen.Frames)
	}
	switch {
	case st.generation < seen.Generation, st.frames() < seen.Frames:
		return older()
	case st.generation == seen.Generation:
		if hex.EncodeToString(st.chains[seen.Frames][:]) != seen.Chain {
			return refusef(path, "is not the log this device merged before (its operations up to %d differ): it was forked or replaced", seen.Frames)
		}
	}
	return nil
}

// plan is the merge proper; the caller holds the vault's writer lock and
// s.mu.
func (s *Syncer) plan(vc vault.SyncContents, rep *Report) (vault.SyncPlan, error) {
	if err := s.reloadSidecar(); err != nil {
		return vault.SyncPlan{}, err
	}
	logs, _, err := s.readAll(rep)
	if err != nil {
		return vault.SyncPlan{}, err
	}
	f := newFold()
	for _, st := range logs {
		for i := range st.ops {
			f.add(&st.ops[i])
		}
	}
	// Writes that reached the vault but no log (made before sync was set
	// up, or by a build without it), then duplicates across devices.
	if err := s.logLocal(f, catchUp(vc, f), rep); err != nil {
		return vault.SyncPlan{}, err
	}
	if err := s.logLocal(f, f.duplicates(), rep); err != nil {
		return vault.SyncPlan{}, err
	}
	if err := s.redactShredded(f); err != nil {
		return vault.SyncPlan{}, err
	}
	p := diff(vc, f, rep)
	logs[s.id] = s.own.st
	for dev, st := range logs {
		s.side.Seen[hex.EncodeToString(dev[:])] = seenLog{Generation: st.generation, Frames: st.frames(),
			Chain: hex.EncodeToString(st.chains[st.frames()][:])}
	}
	s.side.Clock = s.side.Clock.Max(f.maxClock).Max(s.own.st.lastClock)
	if err := s.side.save(s.v.Path(), vc.MasterKey, vc.VaultID); err != nil {
		return vault.SyncPlan{}, err
	}
	s.sideFI, _ = os.Stat(SidecarPath(s.v.Path()))
	return p, nil
}

// logLocal stamps ops as this device's, appends them to its log and folds
// them in. The caller holds s.mu.
func (s *Syncer) logLocal(f *fold, ops []Op, rep *Report) error {
	if len(ops) == 0 {
		return nil
	}
	c := s.side.Clock.Max(f.maxClock).Max(s.own.st.lastClock)
	for i := range ops {
		c = c.Tick(s.now())
		ops[i].Device, ops[i].Clock = s.id, c
	}
	if err := s.own.append(ops); err != nil {
		return s.unreachable(err)
	}
	for i := range ops {
		f.add(&ops[i])
	}
	rep.Logged += len(ops)
	return nil
}

// catchUp makes store and link ops for syncable items the vault holds and
// no log mentions.
func catchUp(vc vault.SyncContents, f *fold) []Op {
	var ops []Op
	for hexID, r := range vc.Records {
		id, ok := vault.ParseID(hexID)
		if !ok || !vault.Syncable(r) || f.mentions(id) {
			continue
		}
		ops = append(ops, Op{Kind: OpStore, Target: id, Payload: vault.SyncRecordBody(r, true)})
	}
	for hexID, rel := range vc.Relations {
		id, ok := vault.ParseID(hexID)
		if !ok || f.mentions(id) {
			continue
		}
		ops = append(ops, Op{Kind: OpLink, Target: id, Payload: vault.SyncRelationBody(rel)})
	}
	slices.SortFunc(ops, func(a, b Op) int { return bytes.Compare(a.Target[:], b.Target[:]) })
	return ops
}

// redactShredded rewrites this device's log without the content of every
// shredded target it holds (FORMAT.md 10.5).
func (s *Syncer) redactShredded(f *fold) error {
	targets := map[[16]byte]bool{}
	for i := range s.own.st.ops {
		o := &s.own.st.ops[i]
		if o.Kind.carriesContent() {
			if rf, ok := f.recs[o.Target]; ok && rf.shred {
				targets[o.Target] = true
			}
		}
	}
	if len(targets) == 0 {
		return nil
	}
	if _, err := s.own.redact(targets); err != nil {
		return s.unreachable(err)
	}
	return nil
}

// diff is what the vault must write to match the fold.
func diff(vc vault.SyncContents, f *fold, rep *Report) vault.SyncPlan {
	var p vault.SyncPlan
	for id, rf := range f.recs {
		hexID := vault.IDString(id)
		cur := vc.Records[hexID]
		if rf.dead {
			if cur != nil {
				p.Delete = append(p.Delete, hexID)
				if rf.shred {
					p.Shred = append(p.Shred, hexID)
				}
			}
			continue
		}
		r := rf.record(id)
		if r == nil {
			if cur == nil {
				rep.Pending++
			}
			continue
		}
		if !vault.Syncable(r) {
			continue
		}
		if cur == nil || !bytes.Equal(vault.SyncRecordBody(cur, false), vault.SyncRecordBody(r, false)) {
			p.Records = append(p.Records, r)
		}
	}
	for id, rl := range f.rels {
		hexID := vault.IDString(id)
		cur := vc.Relations[hexID]
		switch {
		case rl.dead || (f.recs[id] != nil && f.recs[id].dead):
			if cur != nil {
				p.Delete = append(p.Delete, hexID)
			}
		case rl.rel != nil && (cur == nil || !bytes.Equal(vault.SyncRelationBody(cur), vault.SyncRelationBody(rl.rel))):
			p.Relations = append(p.Relations, rl.rel)
		}
	}
	slices.SortFunc(p.Records, func(a, b *vault.Record) int { return cmpStr(a.ID, b.ID) })
	slices.Sort(p.Delete)
	slices.Sort(p.Shred)
	rep.Written = len(p.Records) + len(p.Relations)
	rep.Deleted = len(p.Delete)
	rep.Shredded = len(p.Shred)
	return p
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
