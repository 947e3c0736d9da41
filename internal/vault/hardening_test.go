package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// tornAt runs write with the vault's append torn after frames frames (and
// bytes more), as a kill -9 at that moment would leave it, then reopens
// the vault and returns it.
func (h *harness) tornAt(frames int, bytes int64, write func(v *Vault) error) *Vault {
	h.t.Helper()
	v := h.open("user")
	vaultfmt.SetFailpoint(vaultfmt.FailAppendTear, &vaultfmt.Tear{Frames: frames, Bytes: bytes})
	err := write(v)
	vaultfmt.SetFailpoint(vaultfmt.FailAppendTear, nil)
	var tear *vaultfmt.Tear
	if !errors.As(err, &tear) {
		h.t.Fatalf("write: %v, want the simulated crash", err)
	}
	v.Close()
	return h.open("user")
}

// checkWhole asserts that the vault holds either none or all of want (by
// text), that the audit chain is intact and names every record.
func checkWhole(t *testing.T, v *Vault, want []string, frames int) (whole bool) {
	t.Helper()
	have := map[string]bool{}
	for _, r := range v.st.records {
		have[r.Text] = true
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	if n != 0 && n != len(want) {
		t.Fatalf("torn after %d frames: %d of %d in the vault", frames, n, len(want))
	}
	if rep, err := v.AuditVerify(); err != nil || !rep.OK {
		t.Fatalf("torn after %d frames: audit %+v %v", frames, rep, err)
	}
	return n == len(want)
}

// TestStoreManyAllOrNothingAtEveryFrame: memory_store_many's batch (a
// record and an audit entry per fact) torn at every frame boundary, and
// inside a frame, leaves none of it; complete, all of it. Before batch
// markers a tear after frame k left k/2 facts, some without their audit
// entry.
func TestStoreManyAllOrNothingAtEveryFrame(t *testing.T) {
	facts := []string{"the build server is jupiter", "the wiki lives on port 8080", "backups run at 02:00"}
	frames := 2 * len(facts)
	for k := 0; k <= frames; k++ {
		for _, extra := range []int64{0, 40} {
			if k == frames && extra > 0 {
				continue
			}
			t.Run(fmt.Sprintf("frames=%d+%dB", k, extra), func(t *testing.T) {
				h := newHarness(t, bowEncoder{})
				v := h.tornAt(k, extra, func(v *Vault) error {
					reqs := make([]StoreRequest, len(facts))
					for i, f := range facts {
						reqs[i] = StoreRequest{Text: f, Source: "from chat"}
					}
					_, err := v.StoreMany(reqs)
					return err
				})
				if whole := checkWhole(t, v, facts, k); whole != (k == frames) {
					t.Fatalf("after %d of %d frames: whole = %v", k, frames, whole)
				}
				// The vault takes the next batch where the last whole one ended.
				h.store(v, StoreRequest{Text: "the printer is on floor three"})
				if rep, _ := v.AuditVerify(); !rep.OK {
					t.Fatalf("audit after the next write: %+v", rep)
				}
			})
		}
	}
}

// TestImportBatchAllOrNothing: an import batch (records, their relation,
// the audit entries) torn at every frame boundary is stored whole or not
// at all; before, records and relations were two appends and each could
// tear on its own.
func TestImportBatchAllOrNothing(t *testing.T) {
	in := `{"id":"0123456789abcdef0123456789abcdef","text":"Max works at Northwind"}
{"text":"Northwind is in Leeds"}
{"type":"relation","subject":"Max","predicate":"works_at","object":"Northwind","src":"0123456789abcdef0123456789abcdef"}
`
	want := []string{"Max works at Northwind", "Northwind is in Leeds"}
	const frames = 6 // two records, one relation, three audit entries
	for k := 0; k <= frames; k++ {
		t.Run(fmt.Sprintf("frames=%d", k), func(t *testing.T) {
			h := newHarness(t, nil)
			v := h.tornAt(k, 0, func(v *Vault) error {
				_, err := v.Import(strings.NewReader(in), "notes", nil)
				return err
			})
			whole := checkWhole(t, v, want, k)
			if whole != (k == frames) || (len(v.st.relations) == 1) != whole {
				t.Fatalf("after %d of %d frames: whole %v, %d relations", k, frames, whole, len(v.st.relations))
			}
			// Running the import again completes it, once.
			res, err := v.Import(strings.NewReader(in), "notes", nil)
			if err != nil || len(v.st.records) != 2 || len(v.st.relations) != 1 {
				t.Fatalf("re-import: %+v %v; %d records, %d relations", res, err, len(v.st.records), len(v.st.relations))
			}
		})
	}
}

// TestAuditVerifyFindsUnauditedRecord: a record written around the chain
// (a put with no audit entry, as a torn batch once left) makes verify fail
// and name it; repair adopts it on the record.
func TestAuditVerifyFindsUnauditedRecord(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	h.store(v, StoreRequest{Text: "an audited fact"})
	sneaky := &Record{ID: "00112233445566778899aabbccddeeff", Text: "a sneaked-in fact", Source: "x", Namespace: "main", Kind: KindFact, Discovered: "2026-11-30", Seq: 99}
	id, _ := parseID(sneaky.ID)
	if err := v.file.Append([]vaultfmt.Change{{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRecord, Body: encodeRecord(sneaky)}}}); err != nil {
		t.Fatal(err)
	}
	v.Close()
	v = h.open("user")
	rep, err := v.AuditVerify()
	if err != nil || rep.OK || len(rep.Unaudited) != 1 || rep.Unaudited[0] != sneaky.ID {
		t.Fatalf("unaudited record not reported: %+v %v", rep, err)
	}
	rep, err = v.AuditRepair()
	if err != nil || !rep.OK {
		t.Fatalf("repair: %+v %v", rep, err)
	}
	head := v.st.audit.entries[v.st.audit.head]
	if head.Op != "adopt" || head.Target != sneaky.ID {
		t.Fatalf("repair wrote %+v, want an adopt entry", head)
	}
}

// TestStrictInput: every refused input is refused with ErrInvalid and
// stores nothing; these were accepted before.
func TestStrictInput(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	tags := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", size, i)
		}
		return out
	}
	bad := map[string]StoreRequest{
		"importance NaN":         {Text: "nan fact", Importance: ptr(math.NaN())},
		"importance +Inf":        {Text: "inf fact", Importance: ptr(math.Inf(1))},
		"importance -Inf":        {Text: "inf fact", Importance: ptr(math.Inf(-1))},
		"100 KB source":          {Text: "long source fact", Source: strings.Repeat("s", 100<<10)},
		"source with a newline":  {Text: "newline source fact", Source: "from chat\nand a second claim"},
		"10,000 tags":            {Text: "many tags fact", Tags: tags(10000, 5)},
		"33 tags":                {Text: "many tags fact", Tags: tags(33, 2)},
		"a 65-byte tag":          {Text: "long tag fact", Tags: []string{strings.Repeat("t", 65)}},
		"namespace PACKS/x":      {Text: "packs fact", Namespace: "PACKS/x"},
		"namespace Packs/x":      {Text: "packs fact", Namespace: "Packs/x"},
		"namespace packs/x":      {Text: "packs fact", Namespace: "packs/x"},
		"namespace MAIN":         {Text: "main fact", Namespace: "MAIN"},
		"namespace Main":         {Text: "main fact", Namespace: "Main"},
		"namespace pAcKs":        {Text: "packs fact", Namespace: "pAcKs"},
		"namespace ../x":         {Text: "dots fact", Namespace: "../x"},
		"namespace with control": {Text: "ctl fact", Namespace: "a\x1b]0;x\x07"},
	}
	for name, req := range bad {
		if req.Source == "" {
			req.Source = "from chat"
		}
		if _, err := v.Store(req); err == nil {
			t.Errorf("%s: stored", name)
		} else if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrDenied) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	if len(v.st.records) != 0 {
		t.Fatalf("%d records stored from refused input", len(v.st.records))
	}
	// The bounds themselves are accepted.
	h.store(v, StoreRequest{Text: "bounded fact", Source: strings.Repeat("s", MaxSourceChars), Tags: tags(MaxTags, 3), Importance: ptr(1)})
}

// TestConfigModelMustExist: `config set model` takes only a model that
// exists; a path that leads nowhere was accepted and broke every command.
func TestConfigModelMustExist(t *testing.T) {
	t.Setenv("COMPARTMENT_MODELS_DIR", t.TempDir())
	cfg := DefaultConfig()
	for _, m := range []string{"../../x", "/nonexistent/model", "no-such-model", "bge-small-en-v1.5"} {
		err := cfg.SetSetting("model", m)
		if !errors.Is(err, ErrInvalid) || cfg.Settings.Model != "" {
			t.Errorf("model %q: %v (model now %q)", m, err, cfg.Settings.Model)
		}
		if err != nil && strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("model %q: the refusal is not one line: %q", m, err)
		}
	}
	if err := cfg.SetSetting("model", "static"); err != nil {
		t.Errorf("built-in model refused: %v", err)
	}
}

// TestImportAuthorIsTheImporter: a line's caller field does not make its
// author; the importing caller is recorded, so authorship can't be spoofed.
func TestImportAuthorIsTheImporter(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	in := `{"text":"spoofed fact","caller":"admin"}
{"type":"relation","subject":"a","predicate":"b","object":"c","caller":"admin"}
`
	if _, err := v.Import(strings.NewReader(in), "x", nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range v.st.records {
		if r.Caller != "user" {
			t.Errorf("record author %q, want the importer", r.Caller)
		}
	}
	for _, rel := range v.st.relations {
		if rel.Caller != "user" {
			t.Errorf("relation author %q, want the importer", rel.Caller)
		}
	}
}

// zeros is /dev/zero as a reader, counting what was read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	if z.n > 1<<30 {
		return 0, io.EOF // a safety net for the test itself
	}
	return len(p), nil
}

// TestImportRefusesEndlessLine: an input without line breaks is refused
// after one line's limit, not read whole (import /dev/zero used to grow
// without bound).
func TestImportRefusesEndlessLine(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	z := &zeros{}
	_, err := v.Import(z, "x", nil)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v", err)
	}
	if z.n > 2*MaxImportLine {
		t.Fatalf("read %d bytes before refusing; the line limit is %d", z.n, MaxImportLine)
	}
}

// TestImportRefusesNonFiniteImportance: JSON has no NaN, but an
// out-of-range exponent must not slip through either; nor do the bounds
// on sources, tags and reserved names, which import checks like store.
func TestImportRefusesNonFiniteImportance(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	tags := make([]string, 10000)
	for i := range tags {
		tags[i] = fmt.Sprint("t", i)
	}
	manyTags, _ := json.Marshal(tags)
	for _, line := range []string{`{"text":"x","importance":1e999}`, `{"text":"x","importance":NaN}`, `{"text":"x","importance":"Infinity"}`,
		`{"text":"x","source":"` + strings.Repeat("s", 100<<10) + `"}`, `{"text":"x","tags":` + string(manyTags) + `}`,
		`{"text":"x","namespace":"PACKS/x"}`, `{"text":"x","namespace":"MAIN"}`, `{"text":"x","tags":["` + strings.Repeat("t", 65) + `"]}`} {
		if _, err := v.Import(strings.NewReader(line), "x", nil); err == nil {
			t.Errorf("%s: imported", line)
		}
	}
	if len(v.st.records) != 0 {
		t.Fatal("a non-finite importance was imported")
	}
}

// TestReadsSomething: the rule for memory_status, memory_selftest and
// memory_lock, over the grant shapes that matter.
func TestReadsSomething(t *testing.T) {
	cfg := &Config{Grants: map[string]map[string]Access{
		"*":      {"*": AccessRW},
		"nobody": {"*": AccessNone},
		"narrow": {"*": AccessNone, "shared": AccessRO},
		"prefix": {"*": AccessNone, "team/*": AccessRO},
		"holes":  {"work/*": AccessNone}, // falls back to "*": rw elsewhere
	}}
	for caller, want := range map[string]bool{"nobody": false, "narrow": true, "prefix": true, "holes": true, "anyone": true, "": false} {
		if got := cfg.ReadsSomething(caller); got != want {
			t.Errorf("ReadsSomething(%q) = %v, want %v", caller, got, want)
		}
	}
	closed := &Config{Grants: map[string]map[string]Access{"*": {"*": AccessNone}, "one": {"packs/*": AccessRO}}}
	if closed.ReadsSomething("other") || !closed.ReadsSomething("one") {
		t.Error("a closed default must leave only the caller with a read grant")
	}
}
