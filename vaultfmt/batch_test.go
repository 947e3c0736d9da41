package vaultfmt

import (
	"bytes"
	"path/filepath"
	"testing"
)

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
