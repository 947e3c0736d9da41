package vaultfmt

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzParseHeader: the header parser takes any bytes without panicking,
// and what it accepts re-encodes to the same bytes.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(magic + "\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrNotVault) && !errors.Is(err, ErrUnsupportedVersion) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if body := h.encodeBody(); !bytes.Equal(body, h.raw[:len(h.raw)-trailerSize]) {
			t.Fatalf("accepted header does not re-encode to its bytes")
		}
	})
}

// FuzzScanJournal: the frame reader takes any bytes without panicking; its
// frames tile the input exactly up to the torn tail, and opening them with
// a key never panics either.
func FuzzScanJournal(f *testing.F) {
	f.Add(appendFrame(nil, make([]byte, 40)))
	k, _ := deriveKeys(make([]byte, keySize), [16]byte{})
	h := &header{}
	f.Fuzz(func(t *testing.T, b []byte) {
		frames, torn, err := scanFrames(b, 100, "journal", 0, true)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		end := int64(100)
		for _, fr := range frames {
			if fr.off != end {
				t.Fatalf("frame at %d, want %d", fr.off, end)
			}
			end += fr.size()
		}
		if torn >= 0 && torn != end || torn < 0 && end != 100+int64(len(b)) {
			t.Fatalf("frames end at %d, torn %d, input %d", end, torn, len(b))
		}
		walkJournal(b, 100, h, k, 0, func(int64, int64, []entry) error { return nil })
		for _, fr := range frames {
			parseEntries(fr.body) // as if the AEAD had passed it
		}
	})
}

// FuzzOpenFile: Open on arbitrary file contents returns an error (or, for
// a real vault, the vault) and never panics.
func FuzzOpenFile(f *testing.F) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := parseHeader(b); err == nil {
			for _, s := range h.slots {
				if s.kdf.MemoryKiB > 1024 || s.kdf.Time > 2 {
					return // a valid header asking for a slow unlock: not what this target is for
				}
			}
		}
		path := filepath.Join(dir, "fuzz.vault")
		writeFile(t, path, b)
		if v, err := Open(path, Unlock{Passphrase: []byte(goldenPassphrase)}, newCollector()); err == nil {
			v.Close()
		}
		Verify(path, nil)
	})
}

// FuzzParseEntries: the item-frame parser takes any plaintext without
// panicking, and what it accepts (puts sealed or plain, deletes, a batch
// marker) is written back byte for byte; checkStored then takes a plain
// put exactly where it may stand (a derived item, in a payload whose
// header says so).
func FuzzParseEntries(f *testing.F) {
	id := ID{1, 2, 3}
	f.Add(frameEntries([]entry{{op: OpPut, id: id, kind: 4, plain: []byte("segment part"), stored: true}}, batchMark{}))
	f.Add(frameEntries([]entry{{op: OpPut, id: id, kind: 1, wrappedKey: make([]byte, wrappedKeySize), sealedBody: make([]byte, sealOverhead+3)},
		{op: OpDelete, id: id, kind: 1}}, batchMark{op: opBatchCommit, frames: 2}))
	f.Add(frameEntries([]entry{{op: OpPut, id: id, kind: 4, plain: nil, stored: true}}, batchMark{op: opBatchMore}))
	plainHeader := &header{derived: 4, plainDer: true}
	f.Fuzz(func(t *testing.T, pt []byte) {
		es, mark, err := parseEntries(pt)
		if err != nil {
			return
		}
		if back := frameEntries(es, mark); !bytes.Equal(back, pt) {
			t.Fatalf("entries written back as %x, read from %x", back, pt)
		}
		for _, r := range []role{rolePayload, roleJournal} {
			err := checkStored(es, plainHeader, r)
			want := true
			for i := range es {
				if es[i].op == OpPut && es[i].stored != (r == rolePayload && es[i].kind == 4) {
					want = false
				}
			}
			if (err == nil) != want {
				t.Fatalf("role %d: checkStored says %v, want ok %v", r, err, want)
			}
		}
	})
}
