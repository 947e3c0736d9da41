package vault

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// grantsWithSecret lets "user" read everything and "other" everything but
// the namespace "secret".
func grantsWithSecret(t *testing.T, h *harness) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Grants = map[string]map[string]Access{
		"*":    {"*": AccessRW, "secret": AccessNone},
		"user": {"*": AccessRW},
	}
	if err := cfg.Save(h.path); err != nil {
		t.Fatal(err)
	}
}

func TestRecordsAndAuditLogHonourGrants(t *testing.T) {
	h := newHarness(t, nil)
	grantsWithSecret(t, h)
	user := h.open("user")
	open := h.store(user, StoreRequest{Text: "the build server is ci-3", Namespace: "main"})
	hidden := h.store(user, StoreRequest{Text: "the vault door code is 4471", Namespace: "secret"})
	if _, err := user.Link(LinkRequest{Subject: "door", Predicate: "has_code", Object: "4471", Src: hidden.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := user.Link(LinkRequest{Subject: "ci-3", Predicate: "builds", Object: "main", Src: open.ID}); err != nil {
		t.Fatal(err)
	}

	other := h.open("other")
	before, err := other.Version()
	if err != nil {
		t.Fatal(err)
	}
	h.store(user, StoreRequest{Text: "the lobby printer is called Wren", Namespace: "main"})
	if after, _ := other.Version(); after <= before {
		t.Errorf("another handle's store left the version at %d (was %d)", after, before)
	}
	if again, _ := other.Version(); again != before+1 {
		t.Errorf("version %d after one store, want %d (and no change on reading)", again, before+1)
	}
	recs, err := other.Records()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != open.ID || recs[0].Vectors != nil {
		t.Fatalf("other sees %d records, want %s first and no secret, without vectors", len(recs), open.ID)
	}
	all, _ := user.Records()
	if len(all) != 3 || all[0].ID != open.ID || all[1].ID != hidden.ID {
		t.Fatalf("user sees %d records (want both, oldest first)", len(all))
	}

	rels, _ := other.Relations(RelationQuery{})
	if len(rels.Relations) != 1 || rels.Relations[0].Subject != "ci-3" {
		t.Fatalf("other sees relations %+v: the one from the secret namespace leaked", rels.Relations)
	}

	if _, err := other.AuditLog(hidden.ID, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("other read the audit entries of a secret memory: %v", err)
	}
	mine, err := user.AuditLog(hidden.ID, 0)
	if err != nil || len(mine) != 1 || mine[0].Op != "store" || mine[0].Target != hidden.ID {
		t.Fatalf("user's audit of its own memory: %+v, %v", mine, err)
	}
	log, _ := other.AuditLog("", 0)
	for _, e := range log {
		if e.Target == hidden.ID {
			t.Errorf("other's audit log shows an entry about a secret memory: %+v", e)
		}
	}
	full, _ := user.AuditLog("", 0)
	if len(full) != 5 || len(log) != 3 || full[0].Seq < full[1].Seq {
		t.Errorf("audit logs: user %d entries, other %d (want 5 and 3, newest first)", len(full), len(log))
	}
	if short, _ := user.AuditLog("", 1); len(short) != 1 || short[0].Seq != full[0].Seq {
		t.Errorf("limit 1 gave %+v", short)
	}
}

func TestReadOnlyNeverWrites(t *testing.T) {
	h := newHarness(t, nil)
	v := h.open("user")
	stored := h.store(v, StoreRequest{Text: "the printer is on the second floor", Namespace: "main"})
	v.Close()
	before, err := os.ReadFile(h.path)
	if err != nil {
		t.Fatal(err)
	}

	opts := h.opts("user")
	opts.ReadOnly = true
	ro, err := Open(h.path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Get(stored.ID); err != nil {
		t.Fatalf("read-only handle cannot read: %v", err)
	}
	writes := map[string]error{
		"store":  firstErr(ro.Store(StoreRequest{Text: "a new fact", Source: "s"})),
		"forget": func() error { _, err := ro.Forget(stored.ID, true); return err }(),
		"link":   func() error { _, err := ro.Link(LinkRequest{Subject: "a", Predicate: "b", Object: "c"}); return err }(),
		"expire": func() error { _, err := ro.Expire(); return err }(),
	}
	for name, err := range writes {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s through a read-only handle: %v, want ErrReadOnly", name, err)
		}
	}
	if err := ro.Flush(); err != nil {
		t.Errorf("flush of a read-only handle: %v", err)
	}
	after, _ := os.ReadFile(h.path)
	if !bytes.Equal(before, after) {
		t.Error("the vault file changed under a read-only handle")
	}
}
