//go:build unix

package vault

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// compactionHarness opens a vault of 200 claims whose next store after a
// checkpoint period starts a compaction (compaction.go), with before run
// ahead of it and during inside it, after the build and before the commit.
func compactionHarness(t *testing.T, before, during func(v *Vault)) (*harness, *Vault) {
	t.Helper()
	defer func(f, n int) { checkpointFrames, checkpointMinRecords = f, n }(checkpointFrames, checkpointMinRecords)
	checkpointFrames, checkpointMinRecords = 20, 100
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	t.Cleanup(func() { v.Close() })
	importClaims(t, v, genClaims(200))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		h.store(v, StoreRequest{Text: fmt.Sprintf("Compaction probe number %d is stored", i)})
	}
	if before != nil {
		before(v)
	}
	compactionPaused = func() { during(v) }
	defer func() { compactionPaused = nil }()
	epoch := v.File().Header().Epoch
	h.now = h.now.Add(checkpointEvery)
	h.store(v, StoreRequest{Text: "The store that starts the compaction"})
	if err := v.WaitCompaction(); err != nil {
		t.Fatal(err)
	}
	if got := v.File().Header().Epoch; got != epoch+1 {
		t.Fatalf("epoch %d after the compaction, want %d", got, epoch+1)
	}
	return h, v
}

// found reports whether a search for text finds a memory with that text.
func found(t *testing.T, v *Vault, text string) bool {
	t.Helper()
	hits, err := v.Search(SearchRequest{Query: text, TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.HasPrefix(h.Text, text) {
			return true
		}
	}
	return false
}

// TestStoreDuringCompactionKept: a memory stored while the compaction
// builds (no lock held then) is in the compacted file: found by search
// in this handle and after a reopen, which restores the index from the
// segment the compaction wrote and replays the carried store on top.
func TestStoreDuringCompactionKept(t *testing.T) {
	text := "The lighthouse keeper stores a memory during the compaction"
	var id string
	h, v := compactionHarness(t, nil, func(v *Vault) {
		res, err := v.Store(StoreRequest{Text: text, Source: "from chat"})
		if err != nil || !res.Stored {
			t.Errorf("store during the build: %+v, %v", res, err)
		}
		id = res.ID
	})
	if st := v.File().Stats(); st.JournalFrames == 0 {
		t.Fatalf("no journal after the compaction: %+v; the store was not carried as the new epoch's journal", st)
	}
	if !found(t, v, text) {
		t.Fatal("the memory stored during the build is not found")
	}
	v.Close()
	r := h.open("user")
	defer r.Close()
	if !restoredFromSegment(r) {
		t.Error("the reopen did not restore the index from the compaction's segment")
	}
	if rec, err := r.Get(id); err != nil || rec.Text != text {
		t.Fatalf("after a reopen: %+v, %v", rec, err)
	}
	if !found(t, r, text) {
		t.Fatal("after a reopen, the memory stored during the build is not found")
	}
}

// TestForgetDuringCompactionGone: a memory forgotten (or shredded) while
// the compaction builds is gone after the commit and after a reopen.
func TestForgetDuringCompactionGone(t *testing.T) {
	for _, shred := range []bool{false, true} {
		t.Run(fmt.Sprintf("shred=%v", shred), func(t *testing.T) {
			text := "The quartermaster keeps the locker code in the blue ledger"
			var id string
			h, v := compactionHarness(t, func(v *Vault) {
				res, err := v.Store(StoreRequest{Text: text, Source: "from chat"})
				if err != nil || !res.Stored {
					t.Fatalf("store: %+v, %v", res, err)
				}
				id = res.ID
			}, func(v *Vault) {
				if _, err := v.Forget(id, shred); err != nil {
					t.Errorf("forget during the build: %v", err)
				}
			})
			check := func(v *Vault, when string) {
				if found(t, v, text) {
					t.Fatalf("%s: the forgotten memory is still found", when)
				}
				if r, err := v.Get(id); err == nil && r.Live() {
					t.Fatalf("%s: the forgotten memory is live: %+v", when, r)
				}
			}
			check(v, "after the commit")
			v.Close()
			r := h.open("user")
			defer r.Close()
			check(r, "after a reopen")
		})
	}
}

// TestConcurrentStoreSearchCompact: stores and searches from several
// goroutines while compactions start and commit (run it with -race);
// every acknowledged store is there afterwards, in the handle and after a
// reopen.
func TestConcurrentStoreSearchCompact(t *testing.T) {
	defer func(f, n int) { checkpointFrames, checkpointMinRecords = f, n }(checkpointFrames, checkpointMinRecords)
	checkpointFrames, checkpointMinRecords = 10, 100
	h := newHarness(t, bowEncoder{})
	var clock atomic.Int64 // searches read the clock without v.mu
	clock.Store(h.now.UnixNano())
	o := h.opts("user")
	o.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	v, err := Open(h.path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	importClaims(t, v, genClaims(150))
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	stored := map[string]string{}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				text := fmt.Sprintf("Writer %d stored concurrent note %d about the harbour crane", w, i)
				res, err := v.Store(StoreRequest{Text: text, Source: "from chat"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				stored[res.ID] = text
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				if _, err := v.Search(SearchRequest{Query: "harbour crane note"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// The clock moves on, so checkpoints keep coming due while they write.
	for i := 0; i < 20; i++ {
		clock.Add(int64(checkpointEvery))
		if _, err := v.Store(StoreRequest{Text: fmt.Sprintf("Clock tick %d stored by the main goroutine", i), Source: "from chat"}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := v.WaitCompaction(); err != nil {
		t.Fatal(err)
	}
	epoch := v.File().Header().Epoch
	if epoch < 2 {
		t.Errorf("epoch %d: no compaction ran", epoch)
	}
	for id, text := range stored {
		if r, err := v.Get(id); err != nil || r.Text != text {
			t.Fatalf("%s: %+v, %v", id, r, err)
		}
	}
	v.Close()
	r, err := Open(h.path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for id, text := range stored {
		if rec, err := r.Get(id); err != nil || rec.Text != text {
			t.Fatalf("after a reopen, %s: %+v, %v", id, rec, err)
		}
	}
}
