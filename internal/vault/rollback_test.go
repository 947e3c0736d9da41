package vault

import (
	"encoding/json"
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
	if v.st.records.len() != 1 {
		t.Fatalf("the restored copy has %d records", v.st.records.len())
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

// elsewhere writes texts into the vault file at path as another machine
// would: with its own record of what it has seen.
func (h *rollbackHarness) elsewhere(path string, texts ...string) {
	h.t.Helper()
	o := h.opts("user")
	o.StateDir = filepath.Join(h.t.TempDir(), "other-machine")
	v, err := Open(path, o)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, text := range texts {
		h.store(v, StoreRequest{Text: text})
	}
	if err := v.Close(); err != nil {
		h.t.Fatal(err)
	}
}

var fourElsewhere = []string{"written elsewhere one", "written elsewhere two", "written elsewhere three", "written elsewhere four"}

// TestLongerDivergentCopyRefused is #27 item 4 as the audit ran it: store
// A, copy the file, store B; on another machine write four memories into
// the copy; copy it back. The copy is further along than this machine's
// record, but its history does not hold B: refused, naming the override.
func TestLongerDivergentCopyRefused(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("fact A")
	cp := h.copyTo("laptop.vault")
	h.write("fact B")
	h.elsewhere(cp, fourElsewhere...)
	h.restore(cp)
	_, err := h.openErr(false)
	if !errors.Is(err, ErrRollback) {
		t.Fatalf("the longer divergent copy opened: %v", err)
	}
	for _, want := range []string{"different contents", "epoch 0, write 4", "--accept-rollback"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	v, err := h.openErr(true)
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	if v.st.records.len() != 5 {
		t.Fatalf("the accepted copy has %d records, want A and the four", v.st.records.len())
	}
	v.Close()
	h.mustOpen().Close() // accepted once: now the newest state
}

// TestLongerCopyOfSameHistoryAccepted: the honest move (copy the vault to
// another machine, write there, copy it back) extends what this machine
// saw and opens without a word.
func TestLongerCopyOfSameHistoryAccepted(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("fact A", "fact B")
	cp := h.copyTo("laptop.vault")
	h.elsewhere(cp, fourElsewhere...)
	h.restore(cp)
	v := h.mustOpen()
	if v.st.records.len() != 6 {
		t.Fatalf("%d records, want 6", v.st.records.len())
	}
	h.store(v, StoreRequest{Text: "fact C"})
	v.Close()
	h.mustOpen().Close()
}

// TestDivergentCopyRefusedAfterCompactionHere: the chain starts again at
// each compaction from the new header, and a compaction on this machine
// records it, so a copy made after it and written to elsewhere is still
// caught, and so is one made before it.
func TestDivergentCopyRefusedAfterCompactionHere(t *testing.T) {
	h := newRollbackHarness(t)
	v := h.mustOpen()
	h.store(v, StoreRequest{Text: "fact A"})
	before := h.copyTo("before.vault")
	if err := v.file.Compact(); err != nil {
		t.Fatal(err)
	}
	h.store(v, StoreRequest{Text: "fact B"})
	after := h.copyTo("after.vault")
	h.store(v, StoreRequest{Text: "fact C"})
	v.Close()

	h.elsewhere(after, fourElsewhere...)
	h.elsewhere(before, fourElsewhere...)
	for name, cp := range map[string]string{"copy after the compaction": after, "copy before it": before} {
		saved := h.copyTo("saved.vault")
		h.restore(cp)
		if _, err := h.openErr(false); !errors.Is(err, ErrRollback) {
			t.Fatalf("%s opened: %v", name, err)
		}
		h.restore(saved)
		h.mustOpen().Close()
	}
}

// TestDivergentCopyUnderARunningProcess: the longer divergent copy put in
// place while a process has the vault open is refused on its next read
// and its next write.
func TestDivergentCopyUnderARunningProcess(t *testing.T) {
	h := newRollbackHarness(t)
	v := h.mustOpen()
	h.store(v, StoreRequest{Text: "fact A"})
	cp := h.copyTo("laptop.vault")
	h.store(v, StoreRequest{Text: "fact B"})
	w := h.mustOpen()
	h.elsewhere(cp, fourElsewhere...)
	h.restore(cp)
	if _, err := v.Recent(RecentRequest{}); !errors.Is(err, ErrRollback) {
		t.Fatalf("a running process read the divergent copy: %v", err)
	}
	if _, err := w.Store(StoreRequest{Text: "fact C", Source: "s"}); !errors.Is(err, ErrRollback) {
		t.Fatalf("a running process wrote to the divergent copy: %v", err)
	}
}

// TestV1SeenRecordStillReads: a record written before the chain existed
// (no "chain", the v1 MAC) authenticates and is upgraded on the next
// newer state; an older copy is still refused against it.
func TestV1SeenRecordStillReads(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("fact A")
	old := h.copyTo("backup.vault")
	v := h.mustOpen()
	h.store(v, StoreRequest{Text: "fact B"})
	pos, err := v.file.Position()
	if err != nil {
		t.Fatal(err)
	}
	key := v.guard.key
	v.Close()
	files, _ := filepath.Glob(filepath.Join(h.state, "*.json"))
	var rec seenRecord
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &rec); err != nil || rec.Chain == "" {
		t.Fatalf("record %s: %v", b, err)
	}
	pos.Chain = [32]byte{}
	rec.Chain, rec.MAC = "", (&rollbackGuard{key: key}).seenMAC(pos, rec.Seen)
	b, _ = json.Marshal(rec)
	os.WriteFile(files[0], b, 0o600)

	h.mustOpen().Close()
	h.restore(old)
	if _, err := h.openErr(false); !errors.Is(err, ErrRollback) {
		t.Fatalf("older copy against a v1 record: %v", err)
	}
}
