//go:build unix

package vaultfmt

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// startBuild is StartBuild that must return a build.
func startBuild(t *testing.T, v *Vault) *Build {
	t.Helper()
	b, err := v.StartBuild()
	if err != nil || b == nil {
		t.Fatalf("start build: %v, %v", b, err)
	}
	return b
}

// TestBuildCarriesWritesMadeDuringIt: changes appended between the
// snapshot and the commit (single changes and a batch, puts of new items
// and new versions of payload items) are in the compacted file, as the
// new epoch's first journal frames; the file reopens to exactly the
// items a locked compaction would hold, and a later compaction folds it.
func TestBuildCarriesWritesMadeDuringIt(t *testing.T) {
	path, v, c := newTestVault(t)
	for i := 0; i < 40; i++ {
		mustAppend(t, v, c, put(i, fmt.Sprintf("item %d", i)))
	}
	mustAppend(t, v, c, del(3))
	epoch := v.Stats().Epoch
	b := startBuild(t, v)
	mustAppend(t, v, c, put(100, "stored during the build"))
	mustAppend(t, v, c, put(101, "batch a"), put(102, "batch b"), put(5, "item 5, changed"))
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, c, put(103, "stored after the build, before the commit"), del(101))
	done, err := v.CommitBuild(b)
	if err != nil || !done {
		t.Fatalf("commit: %v, %v", done, err)
	}
	st := v.Stats()
	if st.Epoch != epoch+1 || st.JournalFrames != 6 || st.PayloadItems != 39 {
		t.Fatalf("after the commit: %+v, want epoch %d, 6 journal frames, 39 payload items", st, epoch+1)
	}
	if _, err := os.Stat(path + buildSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("build file left: %v", err)
	}
	// Appends go on after the carried frames, in the new epoch.
	mustAppend(t, v, c, put(104, "after the commit"))
	v2, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if v2.Stats() != v.Stats() {
		t.Fatalf("reopened stats %+v, the writer's %+v", v2.Stats(), v.Stats())
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	_, c3 := reopen(t, path)
	sameItems(t, c3, c)
}

// TestBuildHistoryHoldsCarriedWrites: a rollback check that saw the old
// epoch at a write made during the build finds it in the new file's
// ancestry, as after a locked compaction.
func TestBuildHistoryHoldsCarriedWrites(t *testing.T) {
	_, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"))
	b := startBuild(t, v)
	mustAppend(t, v, c, put(3, "three"))
	pos, err := v.Position()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if done, err := v.CommitBuild(b); err != nil || !done {
		t.Fatalf("commit: %v, %v", done, err)
	}
	if d := v.DescendsFrom(pos.Epoch, pos.Seq, pos.Chain); d != Descends {
		t.Fatalf("the state seen during the build: %v, want Descends", d)
	}
	if d := v.DescendsFrom(pos.Epoch, pos.Seq+1, pos.Chain); d != Diverges {
		t.Fatalf("a state past the old epoch: %v, want Diverges", d)
	}
}

// TestBuildForgetFallsBackToLocked: a payload item deleted during the
// build must not have its content copied into the new file, so the commit
// compacts under the lock instead (no journal left, the item gone).
func TestBuildForgetFallsBackToLocked(t *testing.T) {
	path, v, c := newTestVault(t)
	secret := "a secret that is forgotten while the compaction builds"
	mustAppend(t, v, c, put(1, "one"), put(2, secret))
	b := startBuild(t, v)
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, c, del(2), put(3, "three"))
	if done, err := v.CommitBuild(b); err != nil || !done {
		t.Fatalf("commit: %v, %v", done, err)
	}
	if st := v.Stats(); st.JournalFrames != 0 || st.PayloadItems != 2 {
		t.Fatalf("after the commit: %+v, want a locked compaction's 2 payload items and no journal", st)
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if _, err := os.Stat(path + buildSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("build file left: %v", err)
	}
}

// TestBuildDroppedWhenAnotherCompacted: another handle (another process)
// compacts while the build runs; the commit drops the build, reloads the
// other's file, and nothing written by either is lost.
func TestBuildDroppedWhenAnotherCompacted(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	b := startBuild(t, v)
	other, oc := reopen(t, path)
	mustAppend(t, other, oc, put(2, "two"))
	if err := other.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	done, err := v.CommitBuild(b)
	if err != nil || done {
		t.Fatalf("commit: %v, %v; want the build dropped", done, err)
	}
	mustAppend(t, v, c, put(3, "three"))
	c.items[testID(2)] = oc.items[testID(2)]
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}

// TestOneBuildAtATime: a second handle's StartBuild finds the first's
// build running and returns none; once it is committed, it can.
func TestOneBuildAtATime(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	b := startBuild(t, v)
	other, _ := reopen(t, path)
	if b2, err := other.StartBuild(); err != nil || b2 != nil {
		t.Fatalf("second build while one runs: %v, %v", b2, err)
	}
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if done, err := v.CommitBuild(b); err != nil || !done {
		t.Fatalf("commit: %v, %v", done, err)
	}
	b2 := startBuild(t, other)
	if err := b2.Run(); err != nil {
		t.Fatal(err)
	}
	if done, err := other.CommitBuild(b2); err != nil || !done {
		t.Fatalf("second commit: %v, %v", done, err)
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}

// TestBuildStaleFileReused: a build file left by a process that died
// mid-build is overwritten by the next build.
func TestBuildStaleFileReused(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	writeFile(t, path+buildSuffix, []byte("half a build from a process that died"))
	_, c0 := reopen(t, path)
	sameItems(t, c0, c)
	b := startBuild(t, v)
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if done, err := v.CommitBuild(b); err != nil || !done {
		t.Fatalf("commit: %v, %v", done, err)
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}
