package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rollbackHarness opens vaults with the rollback check on.
type rollbackHarness struct {
	*harness
	state string
}

func newRollbackHarness(t *testing.T) *rollbackHarness {
	return &rollbackHarness{harness: newHarness(t, nil), state: filepath.Join(t.TempDir(), "seen")}
}

func (h *rollbackHarness) openErr(accept bool) (*Vault, error) {
	o := h.opts("user")
	o.StateDir, o.AcceptRollback = h.state, accept
	v, err := Open(h.path, o)
	if err == nil {
		h.t.Cleanup(func() { v.Close() })
	}
	return v, err
}

func (h *rollbackHarness) mustOpen() *Vault {
	h.t.Helper()
	v, err := h.openErr(false)
	if err != nil {
		h.t.Fatal(err)
	}
	return v
}

// write opens the vault, stores each text and closes it.
func (h *rollbackHarness) write(texts ...string) {
	h.t.Helper()
	v := h.mustOpen()
	for _, text := range texts {
		h.store(v, StoreRequest{Text: text})
	}
	v.Close()
}

func (h *rollbackHarness) copyTo(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.path)
	if err != nil {
		h.t.Fatal(err)
	}
	dst := filepath.Join(h.t.TempDir(), name)
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
	return dst
}

// restore puts a copy back over the vault as a new file (a new inode, as
// cp or a backup tool would).
func (h *rollbackHarness) restore(src string) {
	h.t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		h.t.Fatal(err)
	}
	tmp := h.path + ".restore"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.path); err != nil {
		h.t.Fatal(err)
	}
}

// TestRollbackRefused: an older copy of the vault put back in place opened
// silently before; now it is refused, naming both states, until opened
// once with AcceptRollback.
func TestRollbackRefused(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("the first fact")
	old := h.copyTo("backup.vault")
	h.write("the second fact")

	h.restore(old)
	_, err := h.openErr(false)
	if !errors.Is(err, ErrRollback) {
		t.Fatalf("older copy opened: %v", err)
	}
	for _, want := range []string{"epoch 0, write 2", "epoch 0, write 4", "--accept-rollback"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	v, err := h.openErr(true)
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	if len(v.st.records) != 1 {
		t.Fatalf("the restored copy has %d records", len(v.st.records))
	}
	v.Close()
	h.mustOpen().Close() // the accepted state is now the newest
}

// TestRollbackAcrossCompaction: a copy from before a compaction (an older
// epoch) is refused too.
func TestRollbackAcrossCompaction(t *testing.T) {
	h := newRollbackHarness(t)
	v := h.mustOpen()
	h.store(v, StoreRequest{Text: "a fact before compaction"})
	old := h.copyTo("before.vault")
	if err := v.file.Compact(); err != nil {
		t.Fatal(err)
	}
	h.store(v, StoreRequest{Text: "a fact after compaction"})
	v.Close()
	h.restore(old)
	if _, err := h.openErr(false); !errors.Is(err, ErrRollback) || !strings.Contains(err.Error(), "epoch 1, write 2") {
		t.Fatalf("pre-compaction copy: %v", err)
	}
}

// TestForkRefused: a copy written to separately reaches the same epoch and
// write count with other contents; it is refused as a different history.
func TestForkRefused(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("the shared fact")
	base := h.copyTo("base.vault")
	h.write("written on this copy")
	// The other copy: the same base, another write, never seen here.
	other := newRollbackHarness(t)
	other.path = h.copyTo("other.vault")
	other.restore(base)
	ov, err := Open(other.path, other.opts("user"))
	if err != nil {
		t.Fatal(err)
	}
	other.store(ov, StoreRequest{Text: "written on the other copy"})
	ov.Close()
	h.restore(other.path)
	if _, err := h.openErr(false); !errors.Is(err, ErrRollback) || !strings.Contains(err.Error(), "different contents") {
		t.Fatalf("forked copy: %v", err)
	}
}

// TestSeenRecordCannotBeForged: editing the record (to make an older copy
// look like the newest) breaks its MAC and is refused.
func TestSeenRecordCannotBeForged(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("a fact", "another fact")
	files, _ := filepath.Glob(filepath.Join(h.state, "*.json"))
	if len(files) != 1 {
		t.Fatalf("%d seen records", len(files))
	}
	b, _ := os.ReadFile(files[0])
	forged := strings.Replace(string(b), `"seq": 4`, `"seq": 1`, 1)
	if forged == string(b) {
		t.Fatalf("record does not hold seq 4: %s", b)
	}
	os.WriteFile(files[0], []byte(forged), 0o600)
	if _, err := h.openErr(false); !errors.Is(err, ErrRollback) || !strings.Contains(err.Error(), "does not authenticate") {
		t.Fatalf("forged record: %v", err)
	}
}

// TestRollbackUnderARunningProcess: a vault replaced by an older copy
// while a process has it open is refused on that process's next call.
func TestRollbackUnderARunningProcess(t *testing.T) {
	h := newRollbackHarness(t)
	v := h.mustOpen()
	h.store(v, StoreRequest{Text: "the first fact"})
	old := h.copyTo("backup.vault")
	h.store(v, StoreRequest{Text: "the second fact"})
	h.restore(old)
	if _, err := v.Recent(RecentRequest{}); !errors.Is(err, ErrRollback) {
		t.Fatalf("a running process read the older copy: %v", err)
	}
	if _, err := v.Store(StoreRequest{Text: "a third fact", Source: "s"}); !errors.Is(err, ErrRollback) {
		t.Fatalf("a running process wrote to the older copy: %v", err)
	}
}
