package vault

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestNamespaceCaseOfReservedNames: a namespace whose first part spells
// main or packs in another case is refused with the spelling to use, so
// MAIN/x cannot sit beside main/x; other names keep their case.
func TestNamespaceCaseOfReservedNames(t *testing.T) {
	for ns, want := range map[string]string{
		"MAIN/x": "main/x", "Main": "main", "mAiN/Work/Y": "main/Work/Y", "PACKS/ops": "packs/ops", "Packs": "packs",
	} {
		err := checkNamespace(ns)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("use %q", want)) {
			t.Errorf("checkNamespace(%q) = %v, want a refusal naming %q", ns, err, want)
		}
	}
	for _, ns := range []string{"main", "main/x", "main/X", "Work", "work/Main", "mainline", "MAINLINE/x", "packs/ops"} {
		if err := checkNamespace(ns); err != nil {
			t.Errorf("checkNamespace(%q) = %v, want it accepted", ns, err)
		}
	}
	h := newHarness(t, nil)
	v := h.open("user")
	h.store(v, StoreRequest{Text: "The lower-case namespace holds this fact", Namespace: "main/x"})
	if _, err := v.Store(StoreRequest{Text: "A fact for the look-alike namespace", Source: "t", Namespace: "MAIN/x"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("store into MAIN/x beside main/x: %v, want ErrInvalid", err)
	}
}

// TestImportErrorSaysWhatWasStored: a bad line stops an import, and the
// error says exactly what was kept: the whole batches before it, not
// "the lines before it".
func TestImportErrorSaysWhatWasStored(t *testing.T) {
	lines := func(n int, bad bool) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"text":"Imported fact number %d is about the topic %d"}`+"\n", i, i*7)
		}
		if bad {
			b.WriteString("this line is not json\n")
		}
		return b.String()
	}
	h := newHarness(t, nil)
	v := h.open("user")
	res, err := v.Import(strings.NewReader(lines(10, true)), "notes", nil)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "nothing was stored") || res.Stored != 0 {
		t.Fatalf("bad line 11 in the first batch: %+v %v", res, err)
	}
	res, err = v.Import(strings.NewReader(lines(importBatch+3, true)), "notes", nil)
	want := fmt.Sprintf("lines 1-%d were stored (%d memories", importBatch, importBatch)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) || res.Stored != importBatch {
		t.Fatalf("bad line after a whole batch: %+v %v, want %q", res, err, want)
	}
	if st, _ := v.Status(); st.Live != importBatch {
		t.Fatalf("%d memories live, want exactly the one whole batch (%d)", st.Live, importBatch)
	}
}
