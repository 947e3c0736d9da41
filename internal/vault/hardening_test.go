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
	head, _ := v.st.audit.get(v.st.audit.head)
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
	if v.st.records.len() != 0 {
		t.Fatalf("%d records stored from refused input", v.st.records.len())
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
	for _, r := range v.st.records.all() {
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
	if v.st.records.len() != 0 {
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
