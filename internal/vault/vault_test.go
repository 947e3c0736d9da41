package vault

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/hermetic"
	"github.com/compartment/compartment/vaultfmt"
)

// testKDF keeps Argon2id cheap in tests; the default is tested in vaultfmt.
var testKDF = vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}

var testPass = []byte("correct horse battery staple")

func TestMain(m *testing.M) {
	hermetic.Clear()
	os.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
	code := m.Run()
	if benchPath != "" {
		// The benchmarks' shared vault (benchVault) outlives each
		// benchmark; without this every run left one in $TMPDIR.
		os.RemoveAll(filepath.Dir(benchPath))
	}
	os.Exit(code)
}

// bowEncoder is a deterministic bag-of-words encoder: words hash into
// buckets, so texts sharing most words have a high cosine and unrelated
// texts a low one. It is a real Encoder, just a tiny one.
type bowEncoder struct{}

const bowDim = 256

func (bowEncoder) Info() embed.ModelInfo {
	return embed.ModelInfo{Name: "test-bow", SHA256: [32]byte{1, 2, 3}, Dim: bowDim, MaxTokens: 512, Calibration: embed.SpecCalibration}
}

func (e bowEncoder) vec(text string) []float32 {
	v := make([]float32, bowDim)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,;:!?\"'")
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%bowDim]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}

func (e bowEncoder) EmbedDocuments(texts []string) ([]embed.Document, error) {
	out := make([]embed.Document, len(texts))
	for i, t := range texts {
		n := len(strings.Fields(t))
		out[i] = embed.Document{Vectors: [][]float32{e.vec(t)}, Tokens: n, Windows: [][2]int{{0, n}}}
	}
	return out, nil
}

func (e bowEncoder) EmbedQuery(text string) ([]float32, error) { return e.vec(text), nil }
func (bowEncoder) Close() error                                { return nil }

type harness struct {
	t    *testing.T
	path string
	now  time.Time
	enc  embed.Encoder
}

func newHarness(t *testing.T, enc embed.Encoder) *harness {
	t.Helper()
	h := &harness{t: t, path: filepath.Join(t.TempDir(), "memory.vault"), now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), enc: enc}
	v, err := Create(h.path, h.opts("user"))
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	return h
}

func (h *harness) opts(caller string) Options {
	return Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Caller: caller, Encoder: h.enc,
		Now: func() time.Time { return h.now }, KDF: testKDF}
}

func (h *harness) open(caller string) *Vault {
	h.t.Helper()
	v, err := Open(h.path, h.opts(caller))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { v.Close() })
	return v
}

func (h *harness) store(v *Vault, req StoreRequest) StoreResult {
	h.t.Helper()
	if req.Source == "" {
		req.Source = "from chat"
	}
	res, err := v.Store(req)
	if err != nil {
		h.t.Fatalf("store %q: %v", req.Text, err)
	}
	return res
}

func ptr(f float64) *float64 { return &f }

func TestStoreGetRoundTripsEveryField(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("claude")
	res := h.store(v, StoreRequest{
		Text: "The staging database runs on port 5433", Source: "read from docker-compose.yml",
		Namespace: "work", Tags: []string{"infra", "db", "infra"}, Importance: ptr(0.75),
		Discovered: "2026-11-01", Expires: "2w", Quarantined: true,
	})
	if !res.Stored || len(res.ID) != 32 {
		t.Fatalf("store result %+v", res)
	}
	if want := "The staging database runs on port 5433 [read from docker-compose.yml, 2026-11-01, expires 2026-12-14]"; res.Text != want {
		t.Errorf("stamped text %q, want %q", res.Text, want)
	}
	v.Close()

	v = h.open("claude")
	r, err := v.Get(res.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	want := Record{ID: res.ID, Text: "The staging database runs on port 5433", Source: "read from docker-compose.yml",
		Discovered: "2026-11-01", Created: h.now, Namespace: "work", Tags: []string{"infra", "db"},
		TagsOrigin: []string{"infra", "db"}, Importance: 0.75, Kind: KindFact, Expires: "2026-12-14",
		Quarantined: true, Caller: "claude", Seq: 1}
	if r.Vectors == nil || r.Vectors.Len() != 1 || r.Vectors.Dim != bowDim {
		t.Fatalf("vectors not stored: %+v", r.Vectors)
	}
	r.Vectors = nil
	if got, exp := strings.Join(r.Tags, ","), strings.Join(want.Tags, ","); got != exp {
		t.Errorf("tags %q want %q", got, exp)
	}
	if r.Text != want.Text || r.Source != want.Source || r.Discovered != want.Discovered ||
		!r.Created.Equal(want.Created) || r.Namespace != want.Namespace || r.Importance != want.Importance ||
		r.Kind != want.Kind || r.Expires != want.Expires || !r.Quarantined || r.Caller != "claude" || r.Seq != 1 {
		t.Errorf("got %+v\nwant %+v", *r, want)
	}
}

func TestOneClaimRules(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	bad := map[string]string{
		"too long":   strings.Repeat("word ", 41),
		"list":       "Things to know:\n- the port is 5433\n- the user is admin",
		"numbered":   "Steps:\n1. build\n2. deploy",
		"heading":    "# Notes\nthe port is 5433",
		"paragraphs": "The port is 5433.\n\nThe user is admin.",
		"empty":      "   ",
		"no word":    "-",
		"dashes":     "— … !",
	}
	for name, text := range bad {
		_, err := v.Store(StoreRequest{Text: text, Source: "from chat"})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
			continue
		}
		if name == "no word" || name == "dashes" {
			if !strings.Contains(err.Error(), "no word or number") {
				t.Errorf("%s: error does not say what is missing: %v", name, err)
			}
			continue
		}
		if name != "empty" && !strings.Contains(err.Error(), "memory_store_many") {
			t.Errorf("%s: error does not say how to split: %v", name, err)
		}
	}
	if _, err := v.Store(StoreRequest{Text: bad["list"], Source: "from chat", Raw: true}); err != nil {
		t.Errorf("raw store refused: %v", err)
	}
	if _, err := v.Store(StoreRequest{Text: "no source here"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "source is required") {
		t.Errorf("missing source: %v", err)
	}
	for _, d := range []string{"2026-13-01", "yesterday", "2027-01-01"} {
		if _, err := v.Store(StoreRequest{Text: "a fact " + d, Source: "x", Discovered: d}); !errors.Is(err, ErrInvalid) {
			t.Errorf("discovered %q accepted: %v", d, err)
		}
	}
	for _, e := range []string{"2026-11-29", "soon", "5x"} {
		if _, err := v.Store(StoreRequest{Text: "a fact " + e, Source: "x", Expires: e}); !errors.Is(err, ErrInvalid) {
			t.Errorf("expires %q accepted: %v", e, err)
		}
	}
	if _, err := v.Store(StoreRequest{Text: "x", Source: "x", Kind: "rumour"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad kind accepted: %v", err)
	}
	res := h.store(v, StoreRequest{Text: "Importance is clamped", Importance: ptr(7)})
	if r, _ := v.Get(res.ID); r.Importance != 1 {
		t.Errorf("importance %v, want clamped to 1", r.Importance)
	}
}

func TestMaxMemoryCharsZeroDisablesTheLengthCheck(t *testing.T) {
	h := newHarness(t, nil)
	cfg := DefaultConfig()
	cfg.Settings.MaxMemoryChars = 0
	if err := cfg.Save(h.path); err != nil {
		t.Fatal(err)
	}
	v := h.open("user")
	h.store(v, StoreRequest{Text: strings.Repeat("long claim ", 60)})
}

func TestExpiryDurations(t *testing.T) {
	today := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{"14d": "2026-02-14", "2w": "2026-02-14", "1m": "2026-03-03", "1y": "2027-01-31", "2026-02-01": "2026-02-01", "2026-01-31": "2026-01-31"} {
		got, err := parseExpiry(in, today)
		if err != nil || got != want {
			t.Errorf("parseExpiry(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestNearDuplicateReturnsExistingID(t *testing.T) {
	for _, enc := range []embed.Encoder{nil, bowEncoder{}} {
		h := newHarness(t, enc)
		v := h.open("user")
		first := h.store(v, StoreRequest{Text: "The staging database runs on port 5433"})
		again := h.store(v, StoreRequest{Text: "the staging database runs on  port 5433."})
		if again.Stored || !again.Duplicate || again.ID != first.ID {
			t.Errorf("encoder %v: duplicate stored: %+v", enc, again)
		}
		other := h.store(v, StoreRequest{Text: "The staging database runs on port 5433", Namespace: "elsewhere"})
		if !other.Stored {
			t.Errorf("encoder %v: same claim in another namespace was not stored", enc)
		}
	}
}

func TestOpinionConflictSupersedeReaffirm(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	old := h.store(v, StoreRequest{Text: "Priya prefers code reviews before noon on weekdays", Kind: KindOpinion})
	// Similar (most words shared) but not the same: a conflict.
	conflict := h.store(v, StoreRequest{Text: "Priya prefers code reviews after noon on weekdays", Kind: KindOpinion})
	if conflict.Stored || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].ID != old.ID {
		t.Fatalf("want a conflict with %s, got %+v", old.ID, conflict)
	}
	replaced := h.store(v, StoreRequest{Text: "Priya prefers code reviews after noon on weekdays", Kind: KindOpinion, Supersedes: []string{old.ID}})
	if !replaced.Stored || len(replaced.Superseded) != 1 {
		t.Fatalf("supersede: %+v", replaced)
	}
	oldRec, err := v.Get(old.ID)
	if err != nil || oldRec.SupersededBy != replaced.ID {
		t.Fatalf("superseded record not readable with pointer: %+v, %v", oldRec, err)
	}
	h.now = h.now.Add(48 * time.Hour)
	again := h.store(v, StoreRequest{Text: "Priya prefers code reviews after noon on weekdays", Kind: KindOpinion})
	if !again.Reaffirmed || again.ID != replaced.ID {
		t.Fatalf("restatement: %+v", again)
	}
	r, _ := v.Get(replaced.ID)
	if !r.Affirmed.Equal(h.now) {
		t.Errorf("affirmed %v, want %v", r.Affirmed, h.now)
	}
	both := h.store(v, StoreRequest{Text: "Priya prefers code reviews before lunch on weekdays", Kind: KindOpinion, Supersedes: []string{}})
	if !both.Stored {
		t.Errorf("supersedes=[] should keep both: %+v", both)
	}
}

func TestStoreManyRefusesTheWholeBatch(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	_, err := v.StoreMany([]StoreRequest{
		{Text: "first good fact", Source: "s"},
		{Text: "second good fact", Source: "s"},
		{Text: "- a list\n- of things", Source: "s"},
	})
	if err == nil || !strings.Contains(err.Error(), "fact 2") {
		t.Fatalf("err = %v, want one naming fact 2", err)
	}
	if recent, _ := v.Recent(RecentRequest{}); len(recent) != 0 {
		t.Fatalf("%d memories stored from a refused batch", len(recent))
	}
	res, err := v.StoreMany([]StoreRequest{{Text: "first good fact", Source: "s"}, {Text: "second good fact", Source: "s"}})
	if err != nil || !res[0].Stored || !res[1].Stored {
		t.Fatalf("good batch: %+v %v", res, err)
	}
}

func TestForgetAndShred(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	keep := h.store(v, StoreRequest{Text: "kept fact about ports"})
	gone := h.store(v, StoreRequest{Text: "forgotten fact about hosts"})
	shred := h.store(v, StoreRequest{Text: "shredded secret zebra-quartz-17"})
	if _, err := v.Forget(gone.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Forget(shred.ID, true); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = h.open("user")
	for _, id := range []string{gone.ID, shred.ID} {
		if _, err := v.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("get %s after forget: %v", id, err)
		}
	}
	if _, err := v.Get(keep.ID); err != nil {
		t.Errorf("kept record: %v", err)
	}
	data, _ := os.ReadFile(h.path)
	if bytes.Contains(data, []byte("zebra-quartz")) {
		t.Error("shredded text is in the file")
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	a := h.store(v, StoreRequest{Text: "fact one", Tags: []string{"t1"}, Discovered: "2026-01-02"})
	h.store(v, StoreRequest{Text: "opinion two", Kind: KindOpinion, Importance: ptr(0.8)})
	if _, err := v.Link(LinkRequest{Subject: "Max", Predicate: "works_at", Object: "Northwind", Src: a.ID}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := v.Export(&buf)
	if err != nil || n != 3 {
		t.Fatalf("export: %d lines, %v", n, err)
	}
	h2 := newHarness(t, nil)
	v2 := h2.open("user")
	res, err := v2.Import(bytes.NewReader(buf.Bytes()), "import", nil)
	if err != nil || res.Stored != 2 || res.Relations != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
	got, err := v2.Get(a.ID)
	if err != nil || got.Discovered != "2026-01-02" || got.Tags[0] != "t1" || !got.Created.Equal(h.now) {
		t.Fatalf("imported record %+v %v", got, err)
	}
	// Importing again adds nothing.
	res, err = v2.Import(bytes.NewReader(buf.Bytes()), "import", nil)
	if err != nil || res.Stored != 0 || res.Skipped != 3 {
		t.Fatalf("second import: %+v %v", res, err)
	}
	plain := "{\"text\": \"plain line one\", \"source\": \"notes\", \"tags\": [\"x\"]}\n\n{\"text\": \"plain line two\"}\n"
	res, err = v2.Import(strings.NewReader(plain), "imported from notes.jsonl", nil)
	if err != nil || res.Stored != 2 {
		t.Fatalf("plain import: %+v %v", res, err)
	}
	bad := "{\"text\": \"fine\"}\n{not json}\n"
	if _, err := v2.Import(strings.NewReader(bad), "x", nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("malformed line: %v", err)
	}
}

func TestGrants(t *testing.T) {
	h := newHarness(t, nil)
	cfg := DefaultConfig()
	cfg.Grants = map[string]map[string]Access{
		"*":       {"*": AccessRW, "secret": AccessNone},
		"user":    {"*": AccessRW, "secret": AccessRW},
		"scratch": {"*": AccessRO, "scratch": AccessRW},
		"intern":  {"work/*": AccessRO, "work/intern": AccessRW},
	}
	if err := cfg.Save(h.path); err != nil {
		t.Fatal(err)
	}
	user := h.open("user")
	secret := h.store(user, StoreRequest{Text: "only the owner", Namespace: "secret"})
	other := h.open("other")
	if !errors.Is(firstErr(other.Store(StoreRequest{Text: "x", Source: "s", Namespace: "secret"})), ErrDenied) {
		t.Error("a caller wrote into a namespace its grant says none")
	}
	if _, err := other.Get(secret.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a caller read a namespace its grant says none: %v", err)
	}
	work := h.store(user, StoreRequest{Text: "a work fact", Namespace: "work/team"})

	scratch := h.open("scratch")
	if _, err := scratch.Get(work.ID); err != nil {
		t.Errorf("scratch cannot read with ro: %v", err)
	}
	if _, err := scratch.Store(StoreRequest{Text: "x", Source: "s", Namespace: "main"}); !errors.Is(err, ErrDenied) {
		t.Errorf("scratch wrote to main with ro: %v", err)
	}
	if _, err := scratch.Store(StoreRequest{Text: "x", Source: "s"}); err != nil {
		t.Errorf("scratch cannot write its own namespace: %v", err)
	}
	if _, err := scratch.Forget(work.ID, false); !errors.Is(err, ErrDenied) {
		t.Errorf("scratch forgot with ro: %v", err)
	}

	for ns, want := range map[string]Access{"work/intern": AccessRW, "work/team": AccessRO, "work": AccessRO, "main": AccessRW, "secret": AccessNone, "packs/ref": AccessRO} {
		if got := cfg.Access("intern", ns); got != want {
			t.Errorf("intern on %s: %s, want %s", ns, got, want)
		}
	}
	if got := cfg.Access("", "main"); got != AccessNone {
		t.Errorf("empty caller got %s", got)
	}
	if got := cfg.Access("someone", "secret"); got != AccessNone {
		t.Errorf("none grant gave %s", got)
	}
}

func firstErr(_ StoreResult, err error) error { return err }

func TestConfigValidation(t *testing.T) {
	cfg := DefaultConfig()
	for key, val := range map[string]string{"duplicate_threshold": "1.5", "max_memory_chars": "-1", "auto_lock_minutes": "-5", "no_such": "1", "expire_memories": "maybe"} {
		if err := cfg.SetSetting(key, val); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("SetSetting(%s, %s) = %v, want an error naming the key", key, val, err)
		}
	}
	if err := cfg.SetSetting("max_memory_chars", "300"); err != nil || cfg.Settings.MaxMemoryChars != 300 {
		t.Errorf("valid setting refused: %v", err)
	}
	cfg.Grants = map[string]map[string]Access{"x": {"*": "write"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "rw, ro, none") {
		t.Errorf("bad grant accepted: %v", err)
	}
}

func TestAuditChainDetectsTampering(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	for _, text := range []string{"one", "two", "three"} {
		h.store(v, StoreRequest{Text: "fact " + text})
	}
	rep, err := v.AuditVerify()
	if err != nil || !rep.OK || rep.Entries != 3 {
		t.Fatalf("clean chain: %+v %v", rep, err)
	}
	// Someone holding the key rewrites entry 2: the chain notices.
	e2, _ := v.st.audit.get(2)
	e := *e2
	e.Caller = "mallory"
	if err := v.file.Append([]vaultfmt.Change{{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: auditID(2), Kind: kindAudit, Body: encodeAudit(&e)}}}); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = h.open("user")
	rep, _ = v.AuditVerify()
	if rep.OK || len(rep.Breaks) == 0 || rep.Breaks[0].Seq != 2 {
		t.Fatalf("edit not detected: %+v", rep)
	}
	// Removal of entry 1.
	if err := v.file.Append([]vaultfmt.Change{{Op: vaultfmt.OpDelete, Item: vaultfmt.Item{ID: auditID(1)}}}); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = h.open("user")
	rep, _ = v.AuditVerify()
	if rep.OK || rep.Breaks[0].Seq != 1 {
		t.Fatalf("removal not detected: %+v", rep)
	}
	rep, err = v.AuditRepair()
	if err != nil || !rep.OK || len(rep.Acknowledged) == 0 {
		t.Fatalf("repair: %+v %v", rep, err)
	}
	h.store(v, StoreRequest{Text: "fact four"})
	if rep, _ := v.AuditVerify(); !rep.OK {
		t.Fatalf("chain after repair and a new write: %+v", rep)
	}
}

func TestRelations(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	link := func(s, p, o, from, to string) *Relation {
		rel, err := v.Link(LinkRequest{Subject: s, Predicate: p, Object: o, From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	link("Max", "works_at", "Northwind", "2024-01-01", "2025-06-30")
	link("Max", "works_at", "Harbour", "2025-07-01", "")
	r3 := link("Priya", "manages", "max", "", "")
	res, _ := v.Relations(RelationQuery{Entity: "MAX"})
	if len(res.Relations) != 3 {
		t.Fatalf("entity query: %d relations", len(res.Relations))
	}
	res, _ = v.Relations(RelationQuery{Subject: "max", AsOf: "2025-01-01"})
	if len(res.Relations) != 1 || res.Relations[0].Object != "Northwind" {
		t.Fatalf("as_of query: %+v", res.Relations)
	}
	res, _ = v.Relations(RelationQuery{Limit: 2})
	if len(res.Relations) != 2 || !res.Truncated {
		t.Fatalf("limit: %d, truncated %v", len(res.Relations), res.Truncated)
	}
	if err := v.Unlink(r3.ID); err != nil {
		t.Fatal(err)
	}
	res, _ = v.Relations(RelationQuery{})
	if len(res.Relations) != 2 || res.Truncated {
		t.Fatalf("after unlink: %d", len(res.Relations))
	}
	if _, err := v.Link(LinkRequest{Subject: "a", Predicate: "b"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("relation without object accepted: %v", err)
	}
}

func TestWrongPassphrase(t *testing.T) {
	h := newHarness(t, nil)
	opts := h.opts("user")
	opts.Unlock.Passphrase = []byte("not the passphrase")
	start := time.Now()
	_, err := Open(h.path, opts)
	if !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Errorf("wrong passphrase answered without the delay")
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(&Record{Text: "t", Source: "s", Tags: []string{"a"}, Vectors: newVectors([32]byte{9}, [][]float32{{0.5, -0.5}}, true)}))
	f.Add([]byte{1, 32, 13, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeRecord("id", body)
		if err != nil {
			return
		}
		// Whatever decodes must encode and decode to the same thing.
		r2, err := decodeRecord("id", encodeRecord(r))
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if r2.Text != r.Text || len(r2.Tags) != len(r.Tags) {
			t.Fatalf("round trip changed the record")
		}
	})
}

// Two handles on one file (as two processes would have) interleave writes:
// each catches up before writing, so write order numbers stay unique and
// the audit chain stays one chain.
func TestTwoWritersKeepOneChain(t *testing.T) {
	h := newHarness(t, nil)
	a, b := h.open("agent-a"), h.open("agent-b")
	var wg sync.WaitGroup
	for _, v := range []*Vault{a, b} {
		wg.Add(1)
		go func(v *Vault) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if _, err := v.Store(StoreRequest{Text: fmt.Sprintf("%s fact %d", v.Caller(), i), Source: "test"}); err != nil {
					t.Error(err)
					return
				}
			}
		}(v)
	}
	wg.Wait()
	for _, v := range []*Vault{a, b} {
		recent, err := v.Recent(RecentRequest{Limit: 100})
		if err != nil || len(recent) != 50 {
			t.Fatalf("%s sees %d memories (%v), want 50", v.Caller(), len(recent), err)
		}
		seqs := map[uint64]bool{}
		for _, r := range recent {
			if seqs[r.Seq] {
				t.Fatalf("%s: seq %d used twice", v.Caller(), r.Seq)
			}
			seqs[r.Seq] = true
		}
		if rep, _ := v.AuditVerify(); !rep.OK || rep.Entries != 50 {
			t.Fatalf("%s: audit %+v", v.Caller(), rep)
		}
	}
}

// otherEncoder is bowEncoder under another model pin.
type otherEncoder struct{ bowEncoder }

func (otherEncoder) Info() embed.ModelInfo {
	return embed.ModelInfo{Name: "test-other", SHA256: [32]byte{7, 7, 7}, Dim: bowDim, MaxTokens: 512, Calibration: embed.SpecCalibration}
}

func TestModelPinAndReindex(t *testing.T) {
	h := newHarness(t, nil) // made before any model: no pin
	v := h.open("user")
	id := h.store(v, StoreRequest{Text: "Max moved customer records from Airtable to Postgres"}).ID
	v.Close()

	h.enc = bowEncoder{}
	v = h.open("user") // adopts the model as its pin
	st, _ := v.Status()
	if st.Model.Pinned != "test-bow" || st.Model.Unembedded != 1 {
		t.Fatalf("after first open with a model: %+v", st.Model)
	}
	if n, err := v.Reindex(ReindexOptions{}); err != nil || n != 1 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	if st, _ := v.Status(); st.Model.Unembedded != 0 {
		t.Fatalf("still unembedded: %+v", st.Model)
	}
	v.Close()

	h.enc = otherEncoder{}
	if _, err := Open(h.path, h.opts("user")); err == nil || !strings.Contains(err.Error(), "reindex --re-embed") {
		t.Fatalf("opening with another model: %v", err)
	}
	opts := h.opts("user")
	opts.Repin = true
	v, err := Open(h.path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := v.Reindex(ReindexOptions{All: true}); err != nil || n != 1 {
		t.Fatalf("re-embed: %d %v", n, err)
	}
	v.Close()
	v = h.open("user")
	hits, err := v.Search(SearchRequest{Query: "customer records", Explain: true})
	if err != nil || len(hits) != 1 || hits[0].ID != id || hits[0].Explain.Cosine <= 0 {
		t.Fatalf("search after re-embed: %+v %v", hits, err)
	}
}

func TestLinkTwiceIsOneRelation(t *testing.T) {
	v := newHarness(t, bowEncoder{}).open("user")
	defer v.Close()
	a, err := v.Link(LinkRequest{Subject: "Max", Predicate: "works_at", Object: "Northwind"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Link(LinkRequest{Subject: "max", Predicate: "works_at", Object: "northwind"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Link(LinkRequest{Subject: "Max", Predicate: "works_at", Object: "Northwind", From: "2026-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Relations(RelationQuery{Entity: "Max"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || c.ID == a.ID || len(res.Relations) != 2 {
		t.Fatalf("ids %s %s %s, %d relations; want the second link to return the first and the dated one to be new", a.ID, b.ID, c.ID, len(res.Relations))
	}
}
