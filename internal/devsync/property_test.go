package devsync

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/compartment/compartment/internal/vault"
)

// world is three devices, each with its own copy of the sync folder, and
// a sync engine the test drives: it copies one device's files to another
// in any order, partly (a copy in progress), or again.
type world struct {
	t       *testing.T
	devs    []*device
	dirs    []string
	acked   map[string]bool // ids whose store was acknowledged
	forgot  map[string]bool // ids whose forget or shred was acknowledged
	shred   map[string]bool
	rels    map[string]bool
	history []string
}

var facts = []string{
	"the staging database listens on port 5433", "the staging database listens on port 5434",
	"the laptop is called tern", "the laptop is not called tern", "the deploy runs on fridays",
	"ana leads the platform team", "bo leads the platform team",
}

var opinions = []string{"tabs are better than spaces", "the new ci is too slow", "go is a good fit here"}

func newWorld(t *testing.T) *world {
	clearEnv(t)
	w := &world{t: t, acked: map[string]bool{}, forgot: map[string]bool{}, shred: map[string]bool{}, rels: map[string]bool{}}
	root := t.TempDir()
	for i := range 3 {
		w.dirs = append(w.dirs, filepath.Join(root, fmt.Sprintf("folder%d", i)))
	}
	for i := range 3 {
		d := newDevice(t, fmt.Sprintf("d%d", i), "", false)
		if i > 0 {
			os.MkdirAll(w.dirs[i], 0o700)
			b, err := os.ReadFile(filepath.Join(w.dirs[0], keyFileName))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(w.dirs[i], keyFileName), b, 0o600)
		}
		d.setUp(w.dirs[i], i == 0)
		w.devs = append(w.devs, d)
	}
	return w
}

func (w *world) logf(format string, a ...any) {
	w.history = append(w.history, fmt.Sprintf(format, a...))
}

// deliver copies device j's entry and log into device i's folder: a prefix
// of the log at least as long as the copy i has (a copy in progress) when
// partial, else all of it.
func (w *world) deliver(j, i int, partial float64) {
	src, dst := w.devs[j], w.dirs[i]
	id := src.s.id
	dev, err := os.ReadFile(devPath(w.dirs[j], id))
	if err != nil {
		w.t.Fatal(err)
	}
	os.WriteFile(devPath(dst, id), dev, 0o600)
	b, err := os.ReadFile(logPath(w.dirs[j], id))
	if err != nil {
		return // no log yet
	}
	cur, _ := os.ReadFile(logPath(dst, id))
	n := len(b)
	sameGen := len(cur) >= logHeaderSize && len(b) >= logHeaderSize && string(cur[44:52]) == string(b[44:52])
	if partial > 0 && sameGen && len(cur) < len(b) {
		n = len(cur) + int(partial*float64(len(b)-len(cur)))
	}
	w.logf("deliver %d->%d %d/%d bytes", j, i, n, len(b))
	os.WriteFile(logPath(dst, id), b[:n], 0o600)
}

func (w *world) live(d *device) []*vault.Record {
	recs, err := d.v.Records()
	if err != nil {
		w.t.Fatal(err)
	}
	return recs
}

// shredTwins records what shredding r on device d also destroys
// (FORMAT.md 10.4): the other copies of its claim that a merge on d folded
// into one memory with it, which the shred logs a shred op for, so that
// the claim is gone everywhere after the next merges. The group is the
// copy that stays (r's superseder when it holds the same claim, else r)
// and every copy of the claim superseded by that one, as d held them just
// before the shred.
func (w *world) shredTwins(i int, r *vault.Record, before []*vault.Record) {
	key := vault.ClaimKey(r)
	root := r.ID
	for _, x := range before {
		if x.ID == r.SupersededBy && vault.ClaimKey(x) == key {
			root = x.ID
		}
	}
	for _, x := range before {
		if x.ID == r.ID || vault.ClaimKey(x) != key || (x.ID != root && x.SupersededBy != root) {
			continue
		}
		w.logf("%d   the shred takes its folded twin %s", i, x.ID)
		w.forgot[x.ID] = true
		w.shred[x.ID] = true
	}
}

func (w *world) step(rt *rapid.T) {
	i := rapid.IntRange(0, 2).Draw(rt, "device")
	d := w.devs[i]
	switch rapid.IntRange(0, 9).Draw(rt, "op") {
	case 0, 1:
		text := rapid.SampledFrom(facts).Draw(rt, "fact")
		res, err := d.v.Store(vault.StoreRequest{Text: text, Source: "test"})
		if err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d store %q -> %s stored=%v", i, text, res.ID, res.Stored)
		if res.Stored {
			w.acked[res.ID] = true
		}
	case 2:
		text := rapid.SampledFrom(opinions).Draw(rt, "opinion")
		res, err := d.v.Store(vault.StoreRequest{Text: text, Source: "test", Kind: vault.KindOpinion})
		if err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d opinion %q -> %s stored=%v reaffirmed=%v", i, text, res.ID, res.Stored, res.Reaffirmed)
		if res.Stored {
			w.acked[res.ID] = true
		}
	case 3:
		recs := w.live(d)
		if len(recs) == 0 {
			return
		}
		old := rapid.SampledFrom(recs).Draw(rt, "old")
		text := rapid.SampledFrom(append(facts, opinions...)).Draw(rt, "new") + " now"
		res, err := d.v.Store(vault.StoreRequest{Text: text, Source: "test", Supersedes: []string{old.ID}})
		if err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d supersede %s by %q -> %s", i, old.ID, text, res.ID)
		if res.Stored {
			w.acked[res.ID] = true
		}
	case 4:
		recs := w.live(d)
		if len(recs) == 0 {
			return
		}
		r := rapid.SampledFrom(recs).Draw(rt, "forget")
		shred := rapid.Bool().Draw(rt, "shred")
		if _, err := d.v.Forget(r.ID, shred); err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d forget %s shred=%v", i, r.ID, shred)
		w.forgot[r.ID] = true
		if shred {
			w.shred[r.ID] = true
			w.shredTwins(i, r, recs)
		}
	case 5:
		rel, err := d.v.Link(vault.LinkRequest{Subject: rapid.SampledFrom([]string{"tern", "heron"}).Draw(rt, "s"),
			Predicate: "runs", Object: rapid.SampledFrom([]string{"debian", "arch"}).Draw(rt, "o")})
		if err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d link %s", i, rel.ID)
	case 6:
		rels, _ := d.v.Relations(vault.RelationQuery{})
		if len(rels.Relations) == 0 {
			return
		}
		rel := rapid.SampledFrom(rels.Relations).Draw(rt, "unlink")
		if err := d.v.Unlink(rel.ID); err != nil {
			w.t.Fatal(err)
		}
		w.logf("%d unlink %s", i, rel.ID)
	case 7, 8:
		j := rapid.IntRange(0, 2).Draw(rt, "from")
		if j != i {
			w.deliver(j, i, rapid.SampledFrom([]float64{0, 0, 0.3, 0.9}).Draw(rt, "partial"))
		}
	case 9:
		if rapid.Bool().Draw(rt, "reopen") {
			if _, err := d.reopen(); err != nil {
				w.t.Fatalf("%d reopen: %v\n%s", i, err, strings.Join(w.history, "\n"))
			}
			w.logf("%d reopen", i)
			return
		}
		if _, err := d.s.Merge(); err != nil {
			w.t.Fatalf("%d merge: %v\n%s", i, err, strings.Join(w.history, "\n"))
		}
		w.logf("%d merge", i)
	}
}

// settle delivers everything everywhere and merges until nothing changes.
func (w *world) settle() {
	for range 4 {
		for j := range 3 {
			for i := range 3 {
				if i != j {
					w.deliver(j, i, 0)
				}
			}
		}
		for i, d := range w.devs {
			if _, err := d.s.Merge(); err != nil {
				w.t.Fatalf("%d final merge: %v\n%s", i, err, strings.Join(w.history, "\n"))
			}
		}
	}
}

func (w *world) check() {
	want := w.devs[0].memories()
	for i, d := range w.devs[1:] {
		if diff := sameLists(want, d.memories()); diff != "" {
			w.t.Fatalf("devices 0 and %d differ:\n%s\nhistory:\n%s", i+1, diff, strings.Join(w.history, "\n"))
		}
	}
	for i, d := range w.devs {
		for id := range w.acked {
			_, err := d.v.Get(id)
			if w.forgot[id] && err == nil {
				w.t.Fatalf("device %d still holds forgotten %s\n%s", i, id, strings.Join(w.history, "\n"))
			}
			if !w.forgot[id] && err != nil {
				w.t.Fatalf("device %d lost acknowledged %s: %v\n%s", i, id, err, strings.Join(w.history, "\n"))
			}
		}
	}
	// Nothing shredded survives in any folder copy.
	for i, dir := range w.dirs {
		for _, d := range w.devs {
			st, err := readLog(logPath(dir, d.s.id), d.s.keys, d.s.id)
			if err != nil {
				w.t.Fatal(err)
			}
			for _, o := range st.ops {
				if o.Kind.carriesContent() && w.shred[vault.IDString(o.Target)] {
					w.t.Fatalf("folder %d: %s's log still holds the content of shredded %s", i, d.name, hex.EncodeToString(o.Target[:]))
				}
			}
		}
	}
}

// TestPropertyThreeDevicesConverge: three devices, random operations
// (shred and opinion changes included), random delivery order, duplicated
// and partial deliveries: every device ends with the same memories,
// nothing acknowledged is lost, nothing shredded survives.
func TestPropertyThreeDevicesConverge(t *testing.T) {
	// Each case makes three vaults and fsyncs every write: 20 cases keep
	// `make test` quick; -rapid.checks=N asks for more.
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		f.Value.Set("20")
		defer f.Value.Set(f.DefValue)
	}
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(t)
		defer func() {
			for _, d := range w.devs {
				d.close()
			}
		}()
		n := rapid.IntRange(5, 40).Draw(rt, "steps")
		for range n {
			w.step(rt)
		}
		w.settle()
		w.check()
	})
}

// TestPropertyFoldIsOrderFree: the fold of any set of operations is the
// same in every order and with duplicates (tags and importance registers,
// supersession, affirmation, forget and shred included).
func TestPropertyFoldIsOrderFree(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		devsN := 3
		var ops []Op
		ids := [][16]byte{{1}, {2}, {3}}
		clocks := make([]Clock, devsN)
		for range rapid.IntRange(1, 40).Draw(rt, "n") {
			d := rapid.IntRange(0, devsN-1).Draw(rt, "dev")
			clocks[d] = clocks[d].Max(Clock{Wall: uint64(rapid.IntRange(0, 20).Draw(rt, "wall"))})
			clocks[d].Logical++
			target := rapid.SampledFrom(ids).Draw(rt, "target")
			o := Op{Device: [16]byte{byte(d + 1)}, Clock: clocks[d], Target: target}
			switch rapid.IntRange(0, 7).Draw(rt, "kind") {
			case 0, 1:
				o.Kind = OpStore
				o.Payload = vault.SyncRecordBody(&vault.Record{Text: rapid.SampledFrom(facts).Draw(rt, "t"), Source: "s", Namespace: "main",
					Tags: []string{rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "tag")}}, false)
			case 2:
				o.Kind, o.Payload = OpTags, encodeTags([]string{rapid.SampledFrom([]string{"x", "y", "z"}).Draw(rt, "tag")})
			case 3:
				o.Kind, o.Payload = OpImportance, encodeF64(rapid.Float64Range(0, 1).Draw(rt, "imp"))
			case 4:
				by := rapid.SampledFrom(ids).Draw(rt, "by")
				o.Kind, o.Payload = OpSupersede, by[:]
			case 5:
				o.Kind, o.Payload = OpAffirm, encodeTime(Clock{Wall: uint64(rapid.IntRange(1, 99).Draw(rt, "aff"))}.Time())
			case 6:
				o.Kind = OpForget
			case 7:
				o.Kind = OpShred
			}
			ops = append(ops, o)
		}
		render := func(ops []Op) string {
			f := newFold()
			for i := range ops {
				f.add(&ops[i])
			}
			var out []string
			for _, id := range ids {
				if rf, ok := f.recs[id]; ok {
					r := rf.record(id)
					s := fmt.Sprintf("%x dead=%v shred=%v", id[:1], rf.dead, rf.shred)
					if r != nil {
						s += fmt.Sprintf(" %q %v %v %s %d", r.Text, r.Tags, r.Importance, r.SupersededBy, r.Affirmed.UnixMilli())
					}
					out = append(out, s)
				}
			}
			for _, o := range f.duplicates() {
				out = append(out, fmt.Sprintf("dup %s %x %x", o.Kind, o.Target[:1], o.Payload))
			}
			return strings.Join(out, "\n")
		}
		want := render(ops)
		perm := rapid.Permutation(ops).Draw(rt, "order")
		dups := rapid.SliceOfN(rapid.SampledFrom(ops), 0, 5).Draw(rt, "dups")
		if got := render(append(slices.Clone(perm), dups...)); got != want {
			rt.Fatalf("order changed the fold:\n%s\nvs\n%s", want, got)
		}
	})
}
