package vaultfmt

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
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

// TestUnbatchedJournalStillReads: journal frames written before batch
// markers existed (the committed example from then holds two unmarked
// frames of one append) each commit themselves.
func TestUnbatchedJournalStillReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.vault") // opening makes a lock file beside it
	writeFile(t, path, readFile(t, "testdata/golden-unbatched.vault"))
	v, err := Open(path, Unlock{Passphrase: []byte(goldenPassphrase)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Torn() != nil {
		t.Fatalf("old journal read as torn: %+v", v.Torn())
	}
	if s := v.Stats(); s.JournalFrames != 2 || s.LiveItems != 1 {
		t.Fatalf("stats %+v, want 2 journal frames and 1 live item", s)
	}
}

// TestBatchMarkerDamage: markers that do not add up are damage, never a
// torn tail: a commit naming the wrong count, an unmarked frame inside an
// open batch, a marker in the payload.
func TestBatchMarkerDamage(t *testing.T) {
	cases := map[string][]batchMark{
		"commit names too many frames": {{op: opBatchMore}, {op: opBatchCommit, frames: 3}},
		"commit names too few frames":  {{op: opBatchMore}, {op: opBatchMore}, {op: opBatchCommit, frames: 2}},
		"unmarked frame inside batch":  {{op: opBatchMore}, {}},
		"commit without its batch":     {{}, {op: opBatchCommit, frames: 2}},
	}
	for name, marks := range cases {
		t.Run(name, func(t *testing.T) {
			path, v, _ := newTestVault(t)
			var buf []byte
			for i, m := range marks {
				e, err := sealItem(v.k, v.st.hdr.vaultID, v.rnd, put(50+i, "x"))
				if err != nil {
					t.Fatal(err)
				}
				aad := aadFrame(roleJournal, v.st.hdr.vaultID, v.st.hdr.epoch, v.st.seq+uint64(i))
				sealed, err := seal(nil, v.k.frame[:], v.rnd, frameEntries([]entry{e}, m), aad)
				if err != nil {
					t.Fatal(err)
				}
				buf = appendFrame(buf, sealed)
			}
			if _, err := v.st.f.WriteAt(buf, v.st.end); err != nil {
				t.Fatal(err)
			}
			v.Close()
			before := readFile(t, path)
			wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrCorrupt, name)
			if !bytes.Equal(readFile(t, path), before) {
				t.Fatal("a refused open changed the file")
			}
		})
	}
}

// TestParseEntriesMarkers: the marker layout of FORMAT.md §2.6, byte for
// byte, and its malformed forms.
func TestParseEntriesMarkers(t *testing.T) {
	del := []byte{2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0}
	frame := func(count byte, parts ...[]byte) []byte {
		b := []byte{count, 0, 0, 0}
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	es, m, err := parseEntries(frame(2, []byte{3}, del))
	if err != nil || m.op != opBatchMore || len(es) != 1 || es[0].op != OpDelete {
		t.Fatalf("more: %v %+v %d", err, m, len(es))
	}
	es, m, err = parseEntries(frame(2, []byte{4, 7, 0, 0, 0}, del))
	if err != nil || m.op != opBatchCommit || m.frames != 7 || len(es) != 1 {
		t.Fatalf("commit: %v %+v %d", err, m, len(es))
	}
	for name, pt := range map[string][]byte{
		"marker alone":        frame(1, []byte{3}),
		"commit of one frame": frame(2, []byte{4, 1, 0, 0, 0}, del),
		"short commit":        frame(2, []byte{4, 7, 0}),
		"marker second":       frame(2, del, []byte{3}),
	} {
		if _, _, err := parseEntries(pt); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
