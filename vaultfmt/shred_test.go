package vaultfmt

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// storedForms returns every wrapped key and sealed body stored for id in a
// file image, found by opening it with the vault's keys.
func storedForms(t *testing.T, v *Vault, b []byte) [][]byte {
	t.Helper()
	h, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	collect := func(off, end int64, es []entry) error {
		for _, e := range es {
			if e.op == OpPut && e.id == testID(1) {
				out = append(out, bytes.Clone(e.wrappedKey), bytes.Clone(e.sealedBody))
			}
		}
		return nil
	}
	if _, _, err := walkPayload(b, h, v.k, collect); err != nil {
		t.Fatal(err)
	}
	start := int64(h.length) + int64(h.payloadLen)
	if _, _, err := walkJournal(b[start:], start, h, v.k, 0, collect); err != nil {
		t.Fatal(err)
	}
	return out
}

// openedView is every frame plaintext of a file image, opened with the
// vault's keys: what a key holder could read out of the file.
func openedView(t *testing.T, v *Vault, b []byte) []byte {
	t.Helper()
	h, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	var view []byte
	collect := func(off, end int64, es []entry) error {
		view = append(view, frameEntries(es, batchMark{})...)
		return nil
	}
	if _, _, err := walkPayload(b, h, v.k, collect); err != nil {
		t.Fatal(err)
	}
	start := int64(h.length) + int64(h.payloadLen)
	if _, _, err := walkJournal(b[start:], start, h, v.k, 0, collect); err != nil {
		t.Fatal(err)
	}
	return view
}

// TestShred: after Shred, neither the item's plaintext, nor any of its
// sealed bodies, nor any of its wrapped keys (every version: payload and
// journal) is anywhere in the file; the old file's blocks are zeroed.
func TestShred(t *testing.T) {
	path, v, c := newTestVault(t)
	secret := "the door code is 7391, shred me"
	mustAppend(t, v, c, put(1, secret+" (first version)"), put(2, "keep me"))
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, c, put(1, secret), put(3, "keep me too"))
	before := readFile(t, path)
	forms := storedForms(t, v, before)
	if len(forms) != 4 {
		t.Fatalf("found %d stored forms of the item, want 4 (2 versions x key+body)", len(forms))
	}
	// Frames are sealed again around the entries, so the stored forms are
	// looked for in what a key holder can open, as well as in the raw bytes.
	beforeView := openedView(t, v, before)
	for _, f := range forms {
		if !bytes.Contains(beforeView, f) {
			t.Fatal("stored form not found in the opened file before shredding")
		}
	}
	oldFile, err := os.Open(path) // the inode Shred will replace
	if err != nil {
		t.Fatal(err)
	}
	defer oldFile.Close()

	if err := v.Shred([]ID{testID(1)}); err != nil {
		t.Fatal(err)
	}
	delete(c.items, testID(1))
	after := readFile(t, path)
	afterView := openedView(t, v, after)
	if bytes.Contains(after, []byte("door code")) || bytes.Contains(before, []byte("door code")) {
		t.Fatal("plaintext in the file")
	}
	for i, f := range forms {
		if bytes.Contains(after, f) || bytes.Contains(afterView, f) {
			t.Fatalf("stored form %d (%d bytes) still in the file", i, len(f))
		}
	}
	if v.Stats().JournalFrames != 0 || v.Stats().LiveItems != 2 {
		t.Fatalf("stats %+v", v.Stats())
	}
	old := make([]byte, len(before))
	n, _ := oldFile.ReadAt(old, 0)
	if !allZero(old[:n]) {
		t.Fatal("the replaced file's bytes were not scrubbed")
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}

// TestShredKeepsHardLinkedCopy: a replaced file that still has another
// name (a user's backup made with ln) is not scrubbed.
func TestShredKeepsHardLinkedCopy(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "x"))
	backup := path + ".backup"
	if err := os.Link(path, backup); err != nil {
		t.Skip("no hard links here:", err)
	}
	want := readFile(t, backup)
	if err := v.Shred([]ID{testID(1)}); err != nil {
		t.Fatal(err)
	}
	// The backup is the old inode: it gained Shred's tombstone frame but
	// must not have been zeroed.
	if got := readFile(t, backup); len(got) <= len(want) || !bytes.Equal(got[:len(want)], want) {
		t.Fatal("hard-linked backup was overwritten")
	}
}

// TestNoPlaintextInFile: nothing a caller stores appears in the file.
func TestNoPlaintextInFile(t *testing.T) {
	path, v, c := newTestVault(t)
	for i := 0; i < 50; i++ {
		mustAppend(t, v, c, put(i, fmt.Sprintf("memorable plaintext number %03d", i)))
	}
	check := func() {
		b := readFile(t, path)
		if bytes.Contains(b, []byte("memorable")) || bytes.Contains(b, []byte("plaintext number")) {
			t.Fatal("plaintext found in the vault file")
		}
	}
	check()
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	check()
}
