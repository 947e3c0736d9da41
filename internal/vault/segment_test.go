package vault

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// genClaims makes n distinct one-claim memories from a fixed seed, with
// enough shared words that searches rank many candidates.
func genClaims(n int) []string {
	subjects := []string{"staging database", "billing service", "nightly backup", "search cluster", "login page", "mail relay", "build cache", "metrics exporter", "payment queue", "image resizer"}
	verbs := []string{"runs on", "listens on", "was moved to", "depends on", "is owned by", "restarts after", "logs to", "is pinned to"}
	objects := []string{"port", "host", "team", "rack", "region", "version", "bucket", "cron slot"}
	r := rand.New(rand.NewPCG(29, 29))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("The %s %s %s %d-%d", subjects[r.IntN(len(subjects))], verbs[r.IntN(len(verbs))], objects[r.IntN(len(objects))], i, r.IntN(1000))
	}
	return out
}

// importClaims stores claims in one import (one batch per chunk).
func importClaims(t testing.TB, v *Vault, claims []string) {
	t.Helper()
	var b strings.Builder
	for _, c := range claims {
		line, _ := json.Marshal(map[string]string{"text": c, "source": "segment test"})
		b.Write(line)
		b.WriteByte('\n')
	}
	if _, err := v.Import(strings.NewReader(b.String()), "segment test", nil); err != nil {
		t.Fatal(err)
	}
}

// ranking is what a search answers, ids and scores in order.
func ranking(t testing.TB, v *Vault, queries []string) []string {
	t.Helper()
	var out []string
	for _, q := range queries {
		hits, err := v.Search(SearchRequest{Query: q, TopK: 20})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, h := range hits {
			fmt.Fprintf(&b, "%s:%.12f ", h.ID, h.Score)
		}
		out = append(out, q+" → "+b.String())
	}
	return out
}

func segmentQueries() []string {
	return []string{"staging database port", "who owns the billing service", "nightly backup bucket", "search cluster region",
		"login page version 7", "mail relay host", "payment queue cron slot", "metrics exporter team", "image resizer rack", "build cache"}
}

// restoredFromSegment reports whether v's engine came from a segment.
func restoredFromSegment(v *Vault) bool { return v.st.segUsed }

func setThreshold(t *testing.T, h *harness, n int) {
	t.Helper()
	cfg, err := LoadConfig(h.path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Settings.HNSWThreshold = n
	if err := cfg.Save(h.path); err != nil {
		t.Fatal(err)
	}
}

// TestSegmentRankingsMatchTheRebuild compares, on a 20,000-memory vault
// kept exact, the rankings of an engine restored from the segment with
// those of one rebuilt from the records (and of the process that wrote
// it): the same ids with the same scores, in the same order.
func TestSegmentRankingsMatchTheRebuild(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	h := newHarness(t, bowEncoder{})
	setThreshold(t, h, 1<<30)
	v := h.open("user")
	importClaims(t, v, genClaims(n))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	queries := segmentQueries()
	written := ranking(t, v, queries)
	v.Close()

	restored := h.open("user")
	if !restoredFromSegment(restored) {
		t.Fatalf("the engine was rebuilt, not restored: %v", restored.st.segErr)
	}
	if !restored.st.segEarly {
		t.Error("the segment was restored after the records, not ahead of them")
	}
	got := ranking(t, restored, queries)
	if restored.st.records.t == nil {
		t.Error("the restored vault's searches built every record")
	}
	restored.Close()

	useSegments = false
	t.Cleanup(func() { useSegments = true })
	rebuilt := h.open("user")
	if restoredFromSegment(rebuilt) {
		t.Fatal("segments are off, yet the engine was restored")
	}
	want := ranking(t, rebuilt, queries)
	// Every record gave its windows up to the restored index, and reads
	// them back (as an update re-encodes it) exactly as the rebuild has them.
	useSegments = true
	again := h.open("user")
	defer again.Close()
	if !again.st.segEarly {
		t.Fatal("the engine was not restored from the segment")
	}
	if !again.st.tableUsed || again.st.tableRetry != nil {
		t.Fatalf("the records were not taken from the record table: %v, %v", again.st.tableErr, again.st.tableRetry)
	}
	shared := 0
	for id, r := range again.st.records.all() {
		if r.Vectors != nil && r.Vectors.engine != nil {
			shared++
		}
		if !bytes.Equal(encodeRecord(r), encodeRecord(rebuilt.st.records.get(id))) {
			t.Fatalf("record %s encodes differently after a restore", id)
		}
	}
	if shared != again.st.records.len() {
		t.Errorf("%d of %d records gave their windows up to the index", shared, again.st.records.len())
	}
	for i := range queries {
		if got[i] != want[i] || written[i] != want[i] {
			t.Errorf("query %d:\nrestored %s\nrebuilt  %s\nwritten  %s", i, got[i], want[i], written[i])
		}
	}
}

// TestSegmentRestoresTheGraph: above the HNSW threshold the segment holds
// the graph, and the restored graph answers exactly as the one written.
func TestSegmentRestoresTheGraph(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	setThreshold(t, h, 500)
	v := h.open("user")
	importClaims(t, v, genClaims(1500))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	queries := segmentQueries()
	written := ranking(t, v, queries)
	v.Close()
	r := h.open("user")
	if !restoredFromSegment(r) {
		t.Fatalf("rebuilt: %v", r.st.segErr)
	}
	if got := ranking(t, r, queries); !slices.Equal(got, written) {
		t.Errorf("restored graph answers differently:\n%s\nvs\n%s", strings.Join(got, "\n"), strings.Join(written, "\n"))
	}
}

// TestSegmentThenJournal: changes after the segment's compaction (stores,
// a forget, a supersede) are applied on the restored engine.
func TestSegmentThenJournal(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(300))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	added := h.store(v, StoreRequest{Text: "The ferry timetable lives in the shared drive"})
	hits, err := v.Search(SearchRequest{Query: "staging database", TopK: 1})
	if err != nil || len(hits) == 0 {
		t.Fatal(hits, err)
	}
	gone := hits[0].ID
	if _, err := v.Forget(gone, false); err != nil {
		t.Fatal(err)
	}
	queries := append(segmentQueries(), "ferry timetable")
	written := ranking(t, v, queries)
	v.Close()

	r := h.open("user")
	if !restoredFromSegment(r) {
		t.Fatalf("rebuilt: %v", r.st.segErr)
	}
	got := ranking(t, r, queries)
	if !slices.Equal(got, written) {
		t.Errorf("after the journal:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(written, "\n"))
	}
	if !strings.Contains(got[len(got)-1], added.ID) {
		t.Errorf("the record stored after the segment is not found: %s", got[len(got)-1])
	}
	for _, line := range got {
		if strings.Contains(line, gone) {
			t.Errorf("a forgotten record is still found: %s", line)
		}
	}
}

// readSegment returns the segment bytes in the vault's payload (nil: none).
func readSegment(t *testing.T, path string) ([]byte, vaultfmt.Header) {
	t.Helper()
	c := &collector{parts: map[vaultfmt.ID][]byte{}}
	f, err := vaultfmt.Open(path, vaultfmt.Unlock{Passphrase: testPass}, c)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(c.parts) == 0 {
		return nil, f.Header()
	}
	b, err := joinSegment(c.parts)
	if err != nil {
		t.Fatal(err)
	}
	return b, f.Header()
}

// collector keeps the segment's parts, and the record table's in tparts.
type collector struct{ parts, tparts map[vaultfmt.ID][]byte }

func (c *collector) Reset() { clear(c.parts); clear(c.tparts) }
func (c *collector) Apply(ch vaultfmt.Change) error {
	if ch.Op == vaultfmt.OpPut && ch.Item.Kind == kindSegment {
		switch {
		case isSegmentID(ch.Item.ID):
			c.parts[ch.Item.ID] = ch.Item.Body
		case c.tparts != nil:
			c.tparts[ch.Item.ID] = ch.Item.Body
		}
	}
	return nil
}

// TestShredLeavesNothingInTheSegment: a shredded record's words are in the
// segment before the shred and nowhere in the file's items after it.
func TestShredLeavesNothingInTheSegment(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(200))
	secret := h.store(v, StoreRequest{Text: "The vault recovery word is zebraquartzite"})
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	if seg, hdr := readSegment(t, h.path); !bytes.Contains(seg, []byte("zebraquartzite")) || hdr.Derived != kindSegment {
		t.Fatalf("the segment should hold the word before the shred (derived kind %d)", hdr.Derived)
	}
	if _, err := v.Forget(secret.ID, true); err != nil {
		t.Fatal(err)
	}
	v.Close()
	if seg, _ := readSegment(t, h.path); bytes.Contains(seg, []byte("zebraquartzite")) {
		t.Fatal("the shredded word survives in the segment")
	}
	r := h.open("user")
	if hits, _ := r.Search(SearchRequest{Query: "zebraquartzite", TopK: 5}); slices.ContainsFunc(hits, func(h SearchHit) bool { return h.ID == secret.ID }) {
		t.Fatal("the shredded record is found")
	}
	// The next compaction writes a segment again.
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if seg, _ := readSegment(t, h.path); seg == nil || bytes.Contains(seg, []byte("zebraquartzite")) {
		t.Fatalf("after a later compaction: segment %d bytes", len(seg))
	}
}

// staleDeriver compacts a vault with a segment that does not describe it.
type staleDeriver struct {
	collector
	items []vaultfmt.Item
}

func (s *staleDeriver) DerivedKind() vaultfmt.Kind { return kindSegment }
func (s *staleDeriver) Derive(uint64, func(vaultfmt.ID) bool) ([]vaultfmt.Item, error) {
	return s.items, nil
}

// writeStale compacts the vault at path with the given segment bytes.
func writeStale(t *testing.T, path string, seg []byte) {
	t.Helper()
	items, err := splitSegment(seg)
	if err != nil {
		t.Fatal(err)
	}
	d := &staleDeriver{collector: collector{parts: map[vaultfmt.ID][]byte{}}, items: items}
	f, err := vaultfmt.Open(path, vaultfmt.Unlock{Passphrase: testPass}, d)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Compact(); err != nil {
		t.Fatal(err)
	}
}

// TestStaleSegmentIsRebuilt: segments that do not match the records (an
// older epoch, a missing record, other vectors, broken framing) are
// ignored and the engine is rebuilt, finding every record.
func TestStaleSegmentIsRebuilt(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(200))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	late := h.store(v, StoreRequest{Text: "The ferry timetable lives in the shared drive"})
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	queries := append(segmentQueries(), "ferry timetable")
	want := ranking(t, v, queries)
	v.Close()
	old, hdr := readSegment(t, h.path)
	if old == nil {
		t.Fatal("no segment written")
	}
	seg, err := decodeSegment(old)
	if err != nil {
		t.Fatal(err)
	}
	// Each case has one flaw; writeStale's compaction moves to the next
	// epoch, so every case but the first carries that epoch.
	nextEpoch := hdr.Epoch + 1
	fresh := func() *segment { s := *seg; s.epoch = nextEpoch; return &s }
	cases := []struct {
		name string
		why  string // in the reason the segment was ignored
		seg  func() []byte
	}{
		{"older epoch", "epoch", func() []byte { return old }},
		{"missing record", "covers", func() []byte {
			s := fresh()
			s.ids, s.docs = s.ids[:len(s.ids)-1], s.docs[:len(s.docs)-1]
			return s.encode()
		}},
		{"a record twice", "twice", func() []byte {
			s := fresh()
			s.ids = slices.Clone(s.ids)
			s.ids[1] = s.ids[0]
			return s.encode()
		}},
		{"two records' vectors swapped", "differ", func() []byte {
			s := fresh()
			s.ids = slices.Clone(s.ids)
			s.ids[0], s.ids[1] = s.ids[1], s.ids[0]
			return s.encode()
		}},
		{"truncated", "overruns", func() []byte { b := fresh().encode(); return b[:len(b)-3] }},
		{"bad magic", "no segment header", func() []byte { b := fresh().encode(); b[0] = 'x'; return b }},
		{"other model", "model", func() []byte { s := fresh(); s.model[0] ^= 1; return s.encode() }},
		{"broken literal index", "restore", func() []byte {
			s := fresh()
			s.snap.Literal = s.snap.Literal[:len(s.snap.Literal)/2]
			return s.encode()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			writeStale(t, h.path, c.seg())
			nextEpoch++
			r := h.open("user")
			defer r.Close()
			if restoredFromSegment(r) {
				t.Fatal("a stale segment was used")
			}
			if r.st.segErr == nil || !strings.Contains(r.st.segErr.Error(), c.why) {
				t.Errorf("ignored for %v, want a reason about %q", r.st.segErr, c.why)
			}
			if got := ranking(t, r, queries); !slices.Equal(got, want) {
				t.Errorf("rebuilt engine answers differently:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if _, err := r.Get(late.ID); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSegmentTamperingRefuses: a changed byte in a segment part is caught
// by its frame's authentication, like any other payload byte.
func TestSegmentTamperingRefuses(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(200))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	raw, err := os.ReadFile(h.path)
	if err != nil {
		t.Fatal(err)
	}
	hl := binary.LittleEndian.Uint32(raw[12:])
	// The segment is the payload's first item: flip a byte inside the
	// first frame's ciphertext.
	raw[hl+200] ^= 0x01
	if err := os.WriteFile(h.path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(h.path, h.opts("user"))
	if !errors.Is(err, vaultfmt.ErrCorrupt) {
		t.Fatalf("open of a tampered segment: %v, want ErrCorrupt", err)
	}
}

// TestCheckpointAsTheJournalGrows: enough journal frames compact the vault
// and write a new segment, at most once a period while writing, and at
// close.
func TestCheckpointAsTheJournalGrows(t *testing.T) {
	defer func(f, n int) { checkpointFrames, checkpointMinRecords = f, n }(checkpointFrames, checkpointMinRecords)
	checkpointFrames, checkpointMinRecords = 20, 100
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	importClaims(t, v, genClaims(200))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	epoch := v.File().Header().Epoch
	store := func(from, to int) {
		for i := from; i < to; i++ {
			h.store(v, StoreRequest{Text: fmt.Sprintf("Checkpoint probe number %d is stored", i)})
		}
	}
	store(0, 30)
	if got := v.File().Header().Epoch; got != epoch {
		t.Fatalf("epoch %d: a checkpoint within the first period after open", got)
	}
	h.now = h.now.Add(checkpointEvery)
	store(30, 31)
	if err := v.WaitCompaction(); err != nil { // it runs beside the store (compaction.go)
		t.Fatal(err)
	}
	if got := v.File().Header().Epoch; got != epoch+1 {
		t.Fatalf("epoch %d after a period, want the checkpoint %d", got, epoch+1)
	}
	store(31, 60)
	if got := v.File().Header().Epoch; got != epoch+1 {
		t.Fatalf("epoch %d: a second checkpoint within the period", got)
	}
	v.Close()
	_, hdr := readSegment(t, h.path)
	if hdr.Epoch != epoch+2 {
		t.Errorf("epoch %d after close, want the closing checkpoint %d", hdr.Epoch, epoch+2)
	}
	r := h.open("user")
	if !restoredFromSegment(r) {
		t.Errorf("rebuilt after a checkpoint: %v", r.st.segErr)
	}
	if n := r.File().Stats().JournalFrames; n != 0 {
		t.Errorf("%d journal frames to replay after the closing checkpoint", n)
	}
}

// TestSegmentGolden keeps the byte layout of §3.5 true.
func TestSegmentGolden(t *testing.T) {
	seg := &segment{epoch: 7, model: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}, next: 3,
		ids:  []vaultfmt.ID{{0xaa}, {0xbb}},
		docs: []uint32{0, 2},
		snap: search.Snapshot{Literal: []byte("LIT"), Vectors: []byte("VEC!")}}
	want := "" +
		"63534547" + "01000000" + // magic, version 1, reserved
		"0700000000000000" + // epoch 7
		"0102030405060708" + // model tag
		"02000000" + "03000000" + // N 2, next 3
		"aa000000000000000000000000000000" + "00000000" + // id, doc 0
		"bb000000000000000000000000000000" + "02000000" + // id, doc 2
		"0300000000000000" + "4c4954" + // literal: 3 bytes
		"0400000000000000" + "56454321" // vectors: 4 bytes
	b := seg.encode()
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("segment bytes\n got %s\nwant %s", got, want)
	}
	back, err := decodeSegment(b)
	if err != nil || back.epoch != 7 || back.next != 3 || !slices.Equal(back.docs, seg.docs) || !slices.Equal(back.ids, seg.ids) ||
		string(back.snap.Literal) != "LIT" || string(back.snap.Vectors) != "VEC!" {
		t.Fatalf("decode: %+v, %v", back, err)
	}
	defer func(n int) { segmentPartBytes = n }(segmentPartBytes)
	segmentPartBytes = 40
	items, err := splitSegment(b)
	if err != nil || len(items) != 3 {
		t.Fatalf("split: %d items, %v", len(items), err)
	}
	if got := hex.EncodeToString(items[1].ID[:]); got != "ff696e646578207365676d656e740001" {
		t.Errorf("part 1 id %s", got)
	}
	if got := hex.EncodeToString(items[2].Body[:4]); got != "02000300" {
		t.Errorf("part 2 head %s", got)
	}
	parts := map[vaultfmt.ID][]byte{}
	for _, it := range items {
		parts[it.ID] = it.Body
	}
	if joined, err := joinSegment(parts); err != nil || !bytes.Equal(joined, b) {
		t.Fatalf("join: %v", err)
	}
	if len(parts) != 0 {
		t.Errorf("join left %d parts referenced; it hands them back as it copies", len(parts))
	}
	for _, it := range items {
		parts[it.ID] = it.Body
	}
	delete(parts, items[1].ID)
	if _, err := joinSegment(parts); !errors.Is(err, errSegment) {
		t.Errorf("join with a part missing: %v", err)
	}
}

// FuzzDecodeSegment: the segment decoder and the part joiner never panic,
// and whatever decodes re-encodes to the same bytes.
func FuzzDecodeSegment(f *testing.F) {
	seg := &segment{epoch: 1, next: 2, ids: []vaultfmt.ID{{1}}, docs: []uint32{1}, snap: search.Snapshot{Literal: []byte("x")}}
	f.Add(seg.encode())
	f.Add([]byte("cSEG"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSegment(b)
		if err == nil {
			if !bytes.Equal(s.encode(), b) {
				t.Fatalf("decoded segment re-encodes differently")
			}
		}
		// The same bytes in chunks decode as the whole do.
		sc, errc := decodeSegmentChunks(splitChunks(b, 1+len(b)%11))
		if (err == nil) != (errc == nil) {
			t.Fatalf("whole: %v; in chunks: %v", err, errc)
		}
		if errc == nil && !bytes.Equal(sc.encode(), b) {
			t.Fatalf("segment decoded from chunks re-encodes differently")
		}
		parts := map[vaultfmt.ID][]byte{segmentID(0): b}
		if len(b) > 2 {
			parts[segmentID(1)] = b[2:]
		}
		_, _ = joinSegment(parts)
	})
}

// splitChunks cuts b into chunks of n bytes (the last shorter), with an
// empty one after each.
func splitChunks(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		c := min(n, len(b))
		out = append(out, b[:c], nil)
		b = b[c:]
	}
	return out
}

// TestSegmentChunks decodes a segment from its bytes cut at every offset
// and in chunks of every size up to 48: the same segment each time, with
// the vector index read where it lies (in the chunks' own memory) and the
// damage a whole segment is refused for refused in chunks too.
func TestSegmentChunks(t *testing.T) {
	seg := &segment{epoch: 9, model: [8]byte{9}, next: 5,
		ids:  []vaultfmt.ID{{0xaa}, {0xbb}, {0xcc}},
		docs: []uint32{0, 2, 4},
		snap: search.Snapshot{Literal: []byte("the literal index"), Vectors: []byte("the vector index, longer than a chunk")}}
	b := seg.encode()
	check := func(what string, chunks [][]byte) {
		t.Helper()
		s, err := decodeSegmentChunks(chunks)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !bytes.Equal(s.encode(), b) || s.epoch != 9 || !slices.Equal(s.ids, seg.ids) || string(s.snap.Literal) != "the literal index" {
			t.Fatalf("%s: decoded %+v", what, s)
		}
		for _, p := range s.snap.VectorParts {
			inChunk := false
			for _, c := range chunks {
				for k := range c {
					if &c[k] == &p[0] && len(c)-k >= len(p) {
						inChunk = true
					}
				}
			}
			if !inChunk {
				t.Fatalf("%s: a vector piece is not in the chunks' memory", what)
			}
		}
	}
	for cut := 0; cut <= len(b); cut++ {
		check(fmt.Sprintf("cut at %d", cut), [][]byte{b[:cut], b[cut:]})
	}
	for n := 1; n <= 48; n++ {
		check(fmt.Sprintf("chunks of %d", n), splitChunks(b, n))
	}
	if s, err := decodeSegmentChunks(splitChunks(b, 7)); err != nil || len(s.snap.VectorParts) < 2 {
		t.Fatalf("chunks of 7: %d vector parts, %v; want them in pieces", len(s.snap.VectorParts), err)
	}
	for _, bad := range [][]byte{b[:len(b)-1], b[:40], append(append([]byte(nil), b...), 0)} {
		for n := 1; n <= 13; n += 3 {
			if _, err := decodeSegmentChunks(splitChunks(bad, n)); !errors.Is(err, errSegment) {
				t.Fatalf("%d of %d bytes in chunks of %d: %v, want errSegment", len(bad), len(b), n, err)
			}
		}
	}
}
