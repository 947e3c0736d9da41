package vaultfmt

// liveTable is where the live version of each item is stored (the file
// state's table of [loc]s). A full replay only writes it, one change per
// item, and most opens never read it (a read-only search, a status): so
// a replay logs its changes, in order, and the map is built from the log
// the first time anything reads or writes it otherwise. Applying a log in
// order gives the map applying each change at once would; at 100,000
// memories the map's 200,000 inserts were a tenth of an open's CPU, on
// its serial path.
//
// A *liveTable is shared by the copies of a fileState, so it is built once.
type liveTable struct {
	m   map[ID]loc
	log []liveChange // changes not yet in m, oldest first
	// frames are the frame offsets the log's changes name, each once in
	// a row: the items of one payload frame share theirs.
	frames []int64
	// lazy: changes go to log until the first read.
	lazy bool
}

// liveChange is one logged change: id's live version is entry idx of the
// frame at frames[frame], of kind, or, with gone, id has none. 28 bytes
// where an ID and a loc were 40: at 100,000 memories (a record and an
// audit entry each) the log is 5.4 MB, not 7.7.
type liveChange struct {
	id    ID
	frame uint32
	idx   uint32
	kind  Kind
	gone  bool
}

// newReplayLive is the table of a full replay: it logs, with room for n
// changes.
func newReplayLive(n int) *liveTable {
	return &liveTable{log: make([]liveChange, 0, n), lazy: true}
}

// liveOf is a table holding m (not copied).
func liveOf(m map[ID]loc) *liveTable { return &liveTable{m: m} }

// logPut records that id's live version is at l: in the log while the
// table is lazy, else in the map.
func (t *liveTable) logPut(id ID, l loc) {
	if t.lazy {
		if len(t.frames) == 0 || t.frames[len(t.frames)-1] != l.off {
			t.frames = append(t.frames, l.off)
		}
		t.log = append(t.log, liveChange{id: id, frame: uint32(len(t.frames) - 1), idx: l.idx, kind: l.kind})
		return
	}
	t.m[id] = l
}

// logDelete records that id has no live version.
func (t *liveTable) logDelete(id ID) {
	if t.lazy {
		t.log = append(t.log, liveChange{id: id, gone: true})
		return
	}
	delete(t.m, id)
}

// reserve makes room for n more logged changes, when nothing is logged
// yet, and a sixteenth more for the journal after them: the first change
// beyond the room grows the log by a quarter (at 100,000 memories 7.3 MB
// became 9.2 for a journal of 50 stores).
func (t *liveTable) reserve(n int) {
	if c := n + n/16 + 64; t.lazy && len(t.log) == 0 && cap(t.log) < c {
		t.log = make([]liveChange, 0, c)
	}
}

// reset empties the table (a replay starting again), keeping its mode.
func (t *liveTable) reset() {
	t.log, t.frames = t.log[:0], t.frames[:0]
	clear(t.m)
}

// items is the table as a map, built from the log first if need be. The
// caller may change the map.
func (t *liveTable) items() map[ID]loc {
	if t == nil {
		return nil // a closed vault's
	}
	if t.lazy {
		if t.m == nil {
			t.m = make(map[ID]loc, len(t.log))
		}
		for i := range t.log {
			c := &t.log[i]
			if c.gone {
				delete(t.m, c.id)
			} else {
				t.m[c.id] = loc{off: t.frames[c.frame], idx: c.idx, kind: c.kind}
			}
		}
		t.log, t.frames, t.lazy = nil, nil, false
	}
	return t.m
}
