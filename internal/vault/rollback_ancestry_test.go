package vault

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// elsewhereCompacted writes texts into the vault file at path as another
// machine would (its own record of what it has seen), compacting it
// compactions times after the writes.
func (h *rollbackHarness) elsewhereCompacted(path string, compactions int, texts ...string) {
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
	for i := 0; i < compactions; i++ {
		if err := v.file.Compact(); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := v.Close(); err != nil {
		h.t.Fatal(err)
	}
}

// TestDivergentCopyCompactedElsewhereRefused is #27 item 4 extended: store
// A, copy the file, store B; on another machine write four memories into
// the copy and compact it (a later epoch than this machine saw, so no
// journal is left to compare); copy it back. Its header's ancestry shows
// the epoch this machine saw ended elsewhere without B: refused, naming
// the override, which then takes it.
func TestDivergentCopyCompactedElsewhereRefused(t *testing.T) {
	for _, compactions := range []int{1, 3} {
		t.Run(fmt.Sprint(compactions, " compactions"), func(t *testing.T) {
			h := newRollbackHarness(t)
			h.write("fact A")
			cp := h.copyTo("laptop.vault")
			h.write("fact B")
			h.elsewhereCompacted(cp, compactions, fourElsewhere...)
			h.restore(cp)
			_, err := h.openErr(false)
			if !errors.Is(err, ErrRollback) {
				t.Fatalf("the divergent copy compacted elsewhere opened: %v", err)
			}
			for _, want := range []string{fmt.Sprintf("epoch %d, write 0", compactions), "epoch 0, write 4", "written to separately", "--accept-rollback"} {
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
			h.mustOpen().Close()
		})
	}
}

// TestForwardCopyCompactedElsewhereAccepted: the honest move (copy the
// vault to another machine, write there, compact there, copy it back)
// extends what this machine saw and opens without a word, however many
// compactions (up to the record's 8) happened there.
func TestForwardCopyCompactedElsewhereAccepted(t *testing.T) {
	for _, compactions := range []int{1, 8} {
		t.Run(fmt.Sprint(compactions, " compactions"), func(t *testing.T) {
			h := newRollbackHarness(t)
			h.write("fact A", "fact B")
			cp := h.copyTo("laptop.vault")
			h.elsewhereCompacted(cp, compactions, fourElsewhere...)
			h.restore(cp)
			v := h.mustOpen()
			if v.st.records.len() != 6 {
				t.Fatalf("%d records, want 6", v.st.records.len())
			}
			h.store(v, StoreRequest{Text: "fact C"})
			v.Close()
			h.mustOpen().Close()
		})
	}
}

// TestCopyCompactedBeyondTheRecordRefused: after more compactions
// elsewhere than the ancestry keeps, the copy cannot be shown to hold what
// this machine saw; it is refused with the same override (bounded history
// never means "accept"), even when it did move forward honestly.
func TestCopyCompactedBeyondTheRecordRefused(t *testing.T) {
	h := newRollbackHarness(t)
	h.write("fact A", "fact B")
	cp := h.copyTo("laptop.vault")
	h.elsewhereCompacted(cp, 9, fourElsewhere...)
	h.restore(cp)
	_, err := h.openErr(false)
	if !errors.Is(err, ErrRollback) || !strings.Contains(err.Error(), "does not keep enough of its history") || !strings.Contains(err.Error(), "--accept-rollback") {
		t.Fatalf("a copy compacted 9 times elsewhere: %v", err)
	}
	v, err := h.openErr(true)
	if err != nil || v.st.records.len() != 6 {
		t.Fatalf("accept: %v", err)
	}
}

// TestCompactionHereKeepsTheCheckWhole: this machine's own compactions,
// and another process's on this machine, keep passing the check (the
// compacting process records the new epoch, and the ancestry agrees with
// a process that saw the epoch before).
func TestCompactionHereKeepsTheCheckWhole(t *testing.T) {
	h := newRollbackHarness(t)
	v := h.mustOpen()
	w := h.mustOpen()
	h.store(v, StoreRequest{Text: "fact A"})
	if _, err := w.Recent(RecentRequest{}); err != nil {
		t.Fatal(err)
	}
	h.store(v, StoreRequest{Text: "fact B"})
	for i := 0; i < 3; i++ {
		if err := v.file.Compact(); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := w.Recent(RecentRequest{}); err != nil || len(got) != 2 {
		t.Fatalf("another process after three compactions here: %v, %+v", err, got)
	}
	h.store(w, StoreRequest{Text: "fact C"})
	v.Close()
	w.Close()
	h.mustOpen().Close()
}
