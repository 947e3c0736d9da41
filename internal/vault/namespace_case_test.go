package vault

import (
	"errors"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestNamespaceCaseRefusedWhereCreated is #27 finding 10's leftover: a
// namespace that differs from an existing one only in case ("Work/x"
// beside "work/x") was created beside it. Every way of creating one (a
// store, a batch, an import, a relation) now refuses it with the spelling
// to use; the existing spelling and a new name stay open.
func TestNamespaceCaseRefusedWhereCreated(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	h.store(v, StoreRequest{Text: "The northwind contract renews in March", Namespace: "work/x"})
	refused := func(what string, err error, existing string) {
		t.Helper()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `the existing namespace "`+existing+`"`) || !strings.Contains(err.Error(), `use "`+existing+`"`) {
			t.Errorf("%s: %v, want a refusal naming %q", what, err, existing)
		}
	}
	_, err := v.Store(StoreRequest{Text: "The acme invoice is due on Friday", Source: "t", Namespace: "Work/x"})
	refused("store into Work/x", err, "work/x")
	_, err = v.StoreMany([]StoreRequest{{Text: "The first new fact is about apples", Source: "t", Namespace: "home/y"}, {Text: "The second new fact is about pears", Source: "t", Namespace: "HOME/y"}})
	refused("one batch creating home/y and HOME/y", err, "home/y")
	_, err = v.Import(strings.NewReader(`{"text":"Imported fact one is about the garden"}`+"\n"+`{"text":"Imported fact two is about the garage","namespace":"WORK/X"}`+"\n"), "import", nil)
	refused("import into WORK/X", err, "work/x")
	_, err = v.Import(strings.NewReader(`{"text":"Imported fact three is about the roof","namespace":"notes/z"}`+"\n"+`{"text":"Imported fact four is about the door","namespace":"Notes/Z"}`+"\n"), "import", nil)
	refused("one import creating notes/z and Notes/Z", err, "notes/z")
	_, err = v.Link(LinkRequest{Subject: "northwind", Predicate: "renews in", Object: "March", Namespace: "work/X"})
	refused("a relation in work/X", err, "work/x")

	h.store(v, StoreRequest{Text: "The northwind contract is worth ten thousand", Namespace: "work/x"})
	h.store(v, StoreRequest{Text: "The garden needs water on Sundays", Namespace: "work/y"})
	ns, err := v.Namespaces()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range ns {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "main,work/x,work/y" && strings.Join(names, ",") != "work/x,work/y" {
		t.Fatalf("namespaces %v", names)
	}
}

// storeUnchecked stores req as a build before the case rule did, so a
// test can hold a vault with two spellings of one namespace.
func storeUnchecked(t *testing.T, v *Vault, req StoreRequest) {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	r, err := v.prepare(&req, v.today())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.embedRecords([]*Record{r}); err != nil {
		t.Fatal(err)
	}
	if err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		v.place(b, &req, r)
		return b.changes, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestNamespaceCaseExistingSpellingsStayOpen: a vault written before the
// rule, holding "Work/x" and "work/x", opens, reads both, and takes new
// memories in either spelling; only a third spelling is refused.
func TestNamespaceCaseExistingSpellingsStayOpen(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	storeUnchecked(t, v, StoreRequest{Text: "The lower spelling holds this fact", Source: "t", Namespace: "work/x"})
	storeUnchecked(t, v, StoreRequest{Text: "The upper spelling holds that fact", Source: "t", Namespace: "Work/x"})
	v.Close()

	v = h.open("user")
	for _, ns := range []string{"work/x", "Work/x"} {
		got, err := v.Recent(RecentRequest{Namespace: ns})
		if err != nil || len(got) != 1 {
			t.Fatalf("recent in %s: %v, %d memories", ns, err, len(got))
		}
		h.store(v, StoreRequest{Text: "Another fact stored into the spelling " + ns, Namespace: ns})
	}
	_, err := v.Store(StoreRequest{Text: "A third spelling of the namespace", Source: "t", Namespace: "WORK/X"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"Work/x"`) {
		t.Fatalf("a third spelling: %v", err)
	}
}
