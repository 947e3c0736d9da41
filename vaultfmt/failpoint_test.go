//go:build failpoints

package vaultfmt

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestFailpointsLeaveFileUnchanged: a write that fails at any named point
// leaves the vault file byte-identical, no tmp file behind, and the vault
// usable afterwards.
func TestFailpointsLeaveFileUnchanged(t *testing.T) {
	injected := syscall.ENOSPC
	ops := map[string]func(v *Vault) error{
		FailAppendMidFrame:      func(v *Vault) error { return v.Append([]Change{put(10, "ten"), put(11, "eleven")}) },
		FailAppendBeforeSync:    func(v *Vault) error { return v.Append([]Change{put(10, "ten")}) },
		FailCompactMidWrite:     func(v *Vault) error { return v.Compact() },
		FailCompactBeforeRename: func(v *Vault) error { return v.Compact() },
		FailCompactRename:       func(v *Vault) error { return v.Compact() },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			path, v, c := newTestVault(t)
			mustAppend(t, v, c, put(1, "one"), put(2, "two"))
			if err := v.Compact(); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, v, c, put(3, "three"))
			before := readFile(t, path)
			statsBefore := v.Stats()

			SetFailpoint(name, injected)
			err := op(v)
			SetFailpoint(name, nil)
			if !errors.Is(err, injected) {
				t.Fatalf("got %v, want the injected error", err)
			}
			if after := readFile(t, path); !bytes.Equal(after, before) {
				t.Fatalf("file changed: %d bytes before, %d after", len(before), len(after))
			}
			if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("tmp file left: %v", err)
			}
			if v.Stats() != statsBefore {
				t.Fatalf("stats changed: %+v -> %+v", statsBefore, v.Stats())
			}
			// Still usable: the same operation now succeeds and everything
			// reopens.
			if err := op(v); err != nil {
				t.Fatal(err)
			}
			if name == FailAppendMidFrame || name == FailAppendBeforeSync {
				c.applyOwn(t, []Change{put(10, "ten"), put(11, "eleven")}[:2-btoi(name == FailAppendBeforeSync)])
			}
			v2, c2 := reopen(t, path)
			if v2.Torn() != nil {
				t.Fatalf("torn tail after a failed write: %+v", v2.Torn())
			}
			sameItems(t, c2, c)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestShredFailureKeepsTombstone: when the compaction inside Shred fails,
// the tombstone is already durable, so the item stays deleted.
func TestShredFailureKeepsTombstone(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"))
	SetFailpoint(FailCompactRename, syscall.EIO)
	err := v.Shred([]ID{testID(1)})
	SetFailpoint(FailCompactRename, nil)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("got %v", err)
	}
	_, c2 := reopen(t, path)
	if _, ok := c2.items[testID(1)]; ok || len(c2.items) != 1 {
		t.Fatalf("items after failed shred: %v", c2.ids())
	}
}
