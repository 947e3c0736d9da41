package vault

import (
	"fmt"
	"testing"
)

// TestImportCheckpointsAtItsEnd: an import's batches do not write the
// timed checkpoint a writer that keeps writing would (a minute passes
// between every two batches here, and each finds the journal long enough
// for one), and the import writes it once it ends, so the next open does
// not replay its journal.
func TestImportCheckpointsAtItsEnd(t *testing.T) {
	frames, minRecords := checkpointFrames, checkpointMinRecords
	t.Cleanup(func() { checkpointFrames, checkpointMinRecords = frames, minRecords })
	checkpointFrames, checkpointMinRecords = 20, 100
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	var lines []string
	for i := range 4 * importBatch {
		lines = append(lines, fmt.Sprintf("{\"text\": \"Shelf %d holds box %d\", \"source\": \"inventory\"}", i, i))
	}
	epoch := v.File().Header().Epoch
	r := &lineReader{lines: lines, between: func(k int) {
		if k == 0 || k%importBatch != 0 {
			return
		}
		if st := v.File().Stats(); st.JournalBytes >= 1<<20 {
			t.Fatalf("the journal reached %d bytes: this test needs it below the size that compacts by itself", st.JournalBytes)
		}
		if got := v.File().Header().Epoch; got != epoch {
			t.Fatalf("the import compacted after line %d (epoch %d, was %d): its batches should leave the timed checkpoint to its end", k, got, epoch)
		}
		h.now = h.now.Add(checkpointEvery)
	}}
	res, err := v.Import(r, "inventory", nil)
	if err != nil || res.Stored != len(lines) {
		t.Fatalf("import %+v %v", res, err)
	}
	if err := v.WaitCompaction(); err != nil {
		t.Fatal(err)
	}
	if got := v.File().Header().Epoch; got != epoch+1 {
		t.Fatalf("epoch %d after the import, want %d: the checkpoint at its end was not written", got, epoch+1)
	}
	if st := v.File().Stats(); v.st.needsCheckpoint(st.JournalFrames) {
		t.Fatalf("%d journal frames left after the import's checkpoint", st.JournalFrames)
	}
	// Another write after the import checkpoints by the clock again.
	h.now = h.now.Add(checkpointEvery)
	for i := range checkpointFrames {
		h.store(v, StoreRequest{Text: fmt.Sprintf("Crate %d arrived after the import", i)})
	}
	if err := v.WaitCompaction(); err != nil {
		t.Fatal(err)
	}
	if got := v.File().Header().Epoch; got != epoch+2 {
		t.Fatalf("epoch %d after stores a minute later, want %d", got, epoch+2)
	}
}
