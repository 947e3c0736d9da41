//go:build failpoints

package vaultfmt

import (
	"errors"
	"fmt"
	"testing"
)

// TestBatchTornAtEveryFrameBoundary: a writer that dies after any number
// of a batch's frames, or inside any of them, leaves a file that opens with
// none of the batch applied; once every frame is written, all of it is.
// Before batch markers a reader applied every whole frame, so a kill
// during a large append left a partial batch in the vault.
func TestBatchTornAtEveryFrameBoundary(t *testing.T) {
	const n = 5
	batch := make([]Change, n)
	for i := range batch {
		batch[i] = put(100+i, fmt.Sprintf("batch item %d", i))
	}
	batch[n-1] = del(1) // a delete inside the batch must wait for the commit too
	type cut struct {
		frames int
		bytes  int64
	}
	var cuts []cut
	for k := 0; k <= n; k++ {
		cuts = append(cuts, cut{k, 0})
		if k < n {
			cuts = append(cuts, cut{k, 3}, cut{k, 60}) // inside the frame header, inside the body
		}
	}
	for _, c := range cuts {
		t.Run(fmt.Sprintf("frames=%d+%dB", c.frames, c.bytes), func(t *testing.T) {
			path, v, col := newTestVault(t)
			mustAppend(t, v, col, put(1, "one"), put(2, "two"))
			before := col.ids()

			SetFailpoint(FailAppendTear, &Tear{Frames: c.frames, Bytes: c.bytes})
			err := v.Append(batch)
			SetFailpoint(FailAppendTear, nil)
			var tear *Tear
			if !errors.As(err, &tear) {
				t.Fatalf("append: %v, want the simulated crash", err)
			}
			if err := v.Append([]Change{put(9, "after death")}); err == nil {
				t.Fatal("a dead writer's vault accepted another append")
			}
			v.Close()

			v2, got := reopen(t, path)
			whole := c.frames == n
			if whole {
				col.applyOwn(t, batch)
				if v2.Torn() != nil {
					t.Fatalf("complete batch reported torn: %+v", v2.Torn())
				}
			} else {
				if (c.frames > 0 || c.bytes > 0) && v2.Torn() == nil {
					t.Fatal("an uncommitted batch was not reported as a torn tail")
				}
				if fmt.Sprint(got.ids()) != fmt.Sprint(before) {
					t.Fatalf("partial batch applied: have %d items, want the %d from before", len(got.ids()), len(before))
				}
			}
			sameItems(t, got, col)

			// The next writer truncates the torn batch and appends after
			// the last committed frame; everything reads back.
			mustAppend(t, v2, got, put(7, "seven"), put(8, "eight"))
			v2.Close()
			v3, again := reopen(t, path)
			defer v3.Close()
			if v3.Torn() != nil {
				t.Fatalf("torn tail after the next writer: %+v", v3.Torn())
			}
			sameItems(t, again, got)
			rep, err := Verify(path, &Unlock{Passphrase: testPass})
			if err != nil || rep.Torn != nil {
				t.Fatalf("verify: %v, torn %+v", err, rep.Torn)
			}
		})
	}
}
