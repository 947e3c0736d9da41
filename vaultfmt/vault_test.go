package vaultfmt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestCreateOpenRoundTrip(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"), put(2, "two"), put(3, "three"))
	mustAppend(t, v, c, del(2), put(1, "one, replaced"))
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v2, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if v2.Torn() != nil {
		t.Fatalf("unexpected torn tail %+v", v2.Torn())
	}
	st := v2.Stats()
	if st.JournalFrames != 5 || st.LiveItems != 2 || st.PayloadItems != 0 || st.Epoch != 0 {
		t.Fatalf("stats %+v", st)
	}
	if err := v2.Compact(); err != nil {
		t.Fatal(err)
	}
	st = v2.Stats()
	if st.JournalFrames != 0 || st.PayloadItems != 2 || st.Epoch != 1 || st.JournalBytes != 0 {
		t.Fatalf("stats after compact %+v", st)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != st.FileBytes || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file size %d mode %v, stats %+v", fi.Size(), fi.Mode(), st)
	}
	mustAppend(t, v2, c, put(4, "four"))
	_, c3 := reopen(t, path)
	sameItems(t, c3, c)
}

func TestReplayOrderIsFileOrder(t *testing.T) {
	path, v, c := newTestVault(t)
	for i := 0; i < 10; i++ {
		mustAppend(t, v, c, put(i, "x"))
	}
	mustAppend(t, v, c, put(3, "updated"))
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	_, c2 := reopen(t, path)
	want := []int{0, 1, 2, 4, 5, 6, 7, 8, 9, 3} // an update moves the item to where it was last written
	for i, ch := range c2.order {
		if ch.Item.ID != testID(want[i]) {
			t.Fatalf("replay position %d: got %x, want id %d", i, ch.Item.ID, want[i])
		}
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	path, _, _ := newTestVault(t)
	_, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: fastKDF}}, nil)
	wantErr(t, err, ErrExists, "create over a vault")
	other := filepath.Join(t.TempDir(), "notes.txt")
	writeFile(t, other, []byte("precious"))
	_, err = Create(other, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: fastKDF}}, nil)
	wantErr(t, err, ErrExists, "create over another file")
	if got := readFile(t, other); string(got) != "precious" {
		t.Fatalf("existing file changed: %q", got)
	}
}

func TestNotAVaultAndVersions(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"empty": nil, "text": []byte("hello world, this is not a vault at all"), "short": []byte("\x89CMP"),
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		wantErr(t, openErr(p, Unlock{Passphrase: testPass}), ErrNotVault, name)
		_, err := ReadHeader(p)
		wantErr(t, err, ErrNotVault, name+" header")
	}
	path, v, _ := newTestVault(t)
	v.Close()
	b := readFile(t, path)
	b[8] = 2 // a future version
	writeFile(t, path, b)
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrUnsupportedVersion, "version 2")
	_, err := ReadHeader(path)
	wantErr(t, err, ErrUnsupportedVersion, "ReadHeader version 2")
}

func TestWrongCredentials(t *testing.T) {
	path, v, _ := newTestVault(t)
	master := v.MasterKey()
	v.Close()
	wantErr(t, openErr(path, Unlock{Passphrase: []byte("wrong")}), ErrWrongPassphrase, "wrong passphrase")
	wantErr(t, openErr(path, Unlock{}), ErrWrongPassphrase, "no passphrase")
	bad := bytes.Clone(master)
	bad[0] ^= 1
	wantErr(t, openErr(path, Unlock{MasterKey: bad}), ErrWrongPassphrase, "wrong master key")
	wantErr(t, openErr(path, Unlock{MasterKey: master[:16]}), ErrWrongPassphrase, "short master key")
	if err := openErr(path, Unlock{MasterKey: master}); err != nil {
		t.Fatalf("master key unlock: %v", err)
	}
}

func TestKeyfileSlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "2fa.vault")
	keyfile := randomBody(64)
	v, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphraseKeyfile, Passphrase: testPass, Keyfile: keyfile, KDF: fastKDF}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrKeyfileRequired, "no keyfile")
	wantErr(t, openErr(path, Unlock{Passphrase: testPass, Keyfile: randomBody(64)}), ErrWrongPassphrase, "wrong keyfile")
	wantErr(t, openErr(path, Unlock{Passphrase: []byte("nope"), Keyfile: keyfile}), ErrWrongPassphrase, "wrong passphrase with keyfile")
	if err := openErr(path, Unlock{Passphrase: testPass, Keyfile: keyfile}); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHeader(path)
	if err != nil || len(h.Slots) != 1 || h.Slots[0].Kind != SlotPassphraseKeyfile || h.Slots[0].KDF != fastKDF {
		t.Fatalf("header %+v, %v", h, err)
	}
}

// TestDefaultKDF runs the real Argon2id parameters once: create, unlock.
func TestDefaultKDF(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.vault")
	v, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: DefaultKDF}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, v, nil, put(1, "kept under the default KDF"))
	v.Close()
	h, err := ReadHeader(path)
	if err != nil || h.Slots[0].KDF != (KDFParams{Time: 3, MemoryKiB: 65536, Threads: 4}) {
		t.Fatalf("header slots %+v, %v", h.Slots, err)
	}
	_, c := reopen(t, path)
	if string(c.items[testID(1)].Body) != "kept under the default KDF" {
		t.Fatalf("items %+v", c.items)
	}
	wantErr(t, openErr(path, Unlock{Passphrase: []byte("wrong")}), ErrWrongPassphrase, "wrong passphrase, default KDF")
}

func TestRekey(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "survives rekey"))
	keyfile := randomBody(32)
	newPass := []byte("new passphrase")
	err := v.Rekey([]SlotSpec{
		{Kind: SlotPassphraseKeyfile, Passphrase: newPass, Keyfile: keyfile, KDF: fastKDF},
		{Kind: SlotPassphrase, Passphrase: []byte("recovery"), KDF: fastKDF},
	})
	if err != nil {
		t.Fatal(err)
	}
	master := v.MasterKey()
	v.Close()
	wantErr(t, openErr(path, Unlock{Passphrase: testPass}), ErrWrongPassphrase, "old passphrase")
	for _, u := range []Unlock{{Passphrase: newPass, Keyfile: keyfile}, {Passphrase: []byte("recovery")}, {MasterKey: master}} {
		c2 := newCollector()
		v2, err := Open(path, u, c2)
		if err != nil {
			t.Fatalf("unlock %+v: %v", u, err)
		}
		sameItems(t, c2, c)
		v2.Close()
	}
	wantErr(t, v.Rekey(nil), ErrClosed, "rekey after close")
	if err := v2Rekey(path, nil); err == nil {
		t.Fatal("rekey with no slots succeeded")
	}
}

func v2Rekey(path string, specs []SlotSpec) error {
	v, err := Open(path, Unlock{Passphrase: []byte("recovery")}, nil)
	if err != nil {
		return err
	}
	defer v.Close()
	return v.Rekey(specs)
}

func TestSetPinAndHeader(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "a"))
	pin := ModelPin{Name: "bge-small-en-v1.5-int8", SHA256: [32]byte{1, 2, 3}, Dim: 384}
	if err := v.SetPin(pin); err != nil {
		t.Fatal(err)
	}
	if got := v.Header().Pin; got != pin {
		t.Fatalf("pin %+v", got)
	}
	h, err := ReadHeader(path)
	if err != nil || h.Pin != pin || h.Epoch != 1 || h.Version != 1 {
		t.Fatalf("header %+v, %v", h, err)
	}
	if err := v.SetPin(ModelPin{Name: string(make([]byte, 2000))}); err == nil {
		t.Fatal("oversized pin name accepted")
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}

func TestClosedVault(t *testing.T) {
	_, v, _ := newTestVault(t)
	key := v.MasterKey()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if allZero(key) {
		t.Fatal("MasterKey copy was zeroed with the vault")
	}
	if !allZero(v.k.master[:]) || !allZero(v.k.frame[:]) || !allZero(v.k.wrap[:]) || !allZero(v.k.mac[:]) {
		t.Fatal("key material not zeroed on Close")
	}
	if v.MasterKey() != nil {
		t.Fatal("MasterKey after Close")
	}
	for name, err := range map[string]error{
		"append": v.Append([]Change{put(1, "x")}), "refresh": v.Refresh(), "compact": v.Compact(),
		"shred": v.Shred([]ID{testID(1)}), "setpin": v.SetPin(ModelPin{}),
	} {
		wantErr(t, err, ErrClosed, name)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestAppendValidation(t *testing.T) {
	_, v, _ := newTestVault(t)
	if err := v.Append([]Change{{Op: 9}}); err == nil {
		t.Fatal("unknown op accepted")
	}
	if err := v.Append(nil); err != nil {
		t.Fatalf("empty append: %v", err)
	}
	big := Change{Op: OpPut, Item: Item{Body: make([]byte, MaxItemBytes+1)}}
	if err := v.Append([]Change{big}); err == nil {
		t.Fatal("oversized item accepted")
	}
}

func TestEmptyAndLargeBodies(t *testing.T) {
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, Change{Op: OpPut, Item: Item{ID: testID(1)}}, Change{Op: OpPut, Item: Item{ID: testID(2), Body: randomBody(3 << 20)}})
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	_, c3 := reopen(t, path)
	sameItems(t, c3, c)
}

func TestNeedsCompaction(t *testing.T) {
	_, v, c := newTestVault(t)
	if v.NeedsCompaction() {
		t.Fatal("fresh vault needs compaction")
	}
	body := randomBody(64 << 10)
	for i := 0; !v.NeedsCompaction(); i++ {
		if i > 40 {
			t.Fatalf("journal of %d bytes still below threshold", v.Stats().JournalBytes)
		}
		mustAppend(t, v, c, Change{Op: OpPut, Item: Item{ID: testID(i), Body: body}})
	}
	if j := v.Stats().JournalBytes; j < compactMinJournal {
		t.Fatalf("needed compaction at %d journal bytes", j)
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if v.NeedsCompaction() {
		t.Fatal("needs compaction right after compacting")
	}
	// Now the payload is over 1 MiB: the journal must reach its size.
	mustAppend(t, v, c, Change{Op: OpPut, Item: Item{ID: testID(1000), Body: body}})
	if v.NeedsCompaction() {
		t.Fatal("one frame after compaction triggers it again")
	}
}

func TestCompactDropsDeleted(t *testing.T) {
	path, v, c := newTestVault(t)
	secret := "tombstoned text that compaction must drop"
	mustAppend(t, v, c, put(1, secret), put(2, "stays"))
	mustAppend(t, v, c, del(1))
	before := v.Stats().FileBytes
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if v.Stats().FileBytes >= before || v.Stats().LiveItems != 1 {
		t.Fatalf("stats after compaction %+v (before %d bytes)", v.Stats(), before)
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tmp file left behind: %v", err)
	}
}

// TestReopenManyFramesKeepsBodies: an open recycles the memory of the
// payload frames it has applied; every body the handler was given must
// still hold its own bytes after the whole replay (a body aliasing a
// recycled frame would be overwritten by the frames after it).
func TestReopenManyFramesKeepsBodies(t *testing.T) {
	defer func(n int) { payloadFrameTarget = n }(payloadFrameTarget)
	payloadFrameTarget = 512 // many small frames
	path, v, c := newTestVault(t)
	var batch []Change
	for i := range 400 {
		batch = append(batch, put(i, fmt.Sprintf("body %d %s", i, bytes.Repeat([]byte{byte('a' + i%26)}, i%97))))
		if len(batch) == 50 {
			mustAppend(t, v, c, batch...)
			batch = nil
		}
	}
	if err := v.Compact(); err != nil {
		t.Fatal(err)
	}
	if s := v.Stats(); s.PayloadItems != 400 {
		t.Fatalf("payload holds %d items, want 400", s.PayloadItems)
	}
	_, c2 := reopen(t, path)
	sameItems(t, c2, c)
}
