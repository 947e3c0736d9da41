package vaultfmt

import "testing"

// TestChainSameAfterReopen: the history chain a writer computes as it
// appends is the one a reader computes by replaying the file, at every
// length, including batches; a compaction starts a new chain.
func TestChainSameAfterReopen(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	mustAppend(t, v, c, put(2, "two"), put(3, "three"), del(1))
	mustAppend(t, v, c, put(4, "four"))
	want, err := v.Position()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := reopen(t, path)
	got, err := r.Position()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("reader position %+v, writer %+v", got, want)
	}
	for seq := uint64(0); seq <= want.Seq; seq++ {
		a, okA := v.ChainAt(0, seq)
		b, okB := r.ChainAt(0, seq)
		if !okA || !okB || a != b {
			t.Fatalf("chain at %d: writer %x %v, reader %x %v", seq, a, okA, b, okB)
		}
	}
	if _, ok := r.ChainAt(0, want.Seq+1); ok {
		t.Fatal("a chain value past the end")
	}
	if _, ok := r.ChainAt(1, 0); ok {
		t.Fatal("a chain value for another epoch")
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	after, _ := v.Position()
	if after.Epoch != 1 || after.Seq != 0 || after.Chain == want.Chain {
		t.Fatalf("after compaction %+v", after)
	}
}

// TestChainDiffersForAnotherHistory: two copies of one file, each given a
// different frame, differ in the chain at that frame and every later one,
// though their positions count the same.
func TestChainDiffersForAnotherHistory(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "shared"))
	copyPath := path + ".copy"
	writeFile(t, copyPath, readFile(t, path))
	mustAppend(t, v, c, put(2, "here"))
	mustAppend(t, v, c, put(3, "here too"))
	o, oc := reopen(t, copyPath)
	mustAppend(t, o, oc, put(2, "elsewhere"))
	mustAppend(t, o, oc, put(3, "elsewhere too"))
	for seq := uint64(0); seq <= 3; seq++ {
		a, _ := v.ChainAt(0, seq)
		b, _ := o.ChainAt(0, seq)
		if (a == b) != (seq <= 1) {
			t.Fatalf("chain at %d: equal=%v", seq, a == b)
		}
	}
}
