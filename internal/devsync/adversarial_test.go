package devsync

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
)

// pair is two devices on one folder, each with a few memories, merged.
func pair(t *testing.T) (folder string, a, b *device) {
	t.Helper()
	folder, a, b = joined(t)
	a.store("the office wifi is called heron")
	b.store("the backup job runs at two in the morning")
	mergeInTurn(a, b)
	return folder, a, b
}

func (d *device) logFile() string { return logPath(d.s.dir, d.s.id) }

// expectRefused merges on d and wants a refusal naming file, with d's
// memories unchanged.
func expectRefused(t *testing.T, d *device, file, why string) {
	t.Helper()
	before := d.memories()
	_, err := d.s.Merge()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), why) {
		t.Fatalf("merge: %v, want a refusal of %s (%s)", err, file, why)
	}
	if !strings.Contains(err.Error(), "nothing was merged") {
		t.Fatalf("the refusal does not say nothing was merged: %v", err)
	}
	if diff := sameLists(before, d.memories()); diff != "" {
		t.Fatalf("a refused merge changed the vault:\n%s", diff)
	}
}

func TestTamperedFrameIsRefused(t *testing.T) {
	_, a, b := pair(t)
	b.store("the build server is in rack four")
	raw, err := os.ReadFile(b.logFile())
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-20] ^= 0x01 // inside the last frame's ciphertext
	if err := os.WriteFile(b.logFile(), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, a, b.logFile(), "fails its MAC")
	if got := a.liveTexts(); len(got) != 2 {
		t.Fatalf("a holds %q", got)
	}
}

// TestSplicedFrameIsRefused: a whole, valid frame moved from one log into
// another (or to another place in its own log) does not open there.
func TestSplicedFrameIsRefused(t *testing.T) {
	_, a, b := pair(t)
	b.store("the build server is in rack four")
	aLog, _ := os.ReadFile(a.logFile())
	bLog, _ := os.ReadFile(b.logFile())
	bState, err := parseLog(b.logFile(), bLog, b.s.keys, b.s.id)
	if err != nil {
		t.Fatal(err)
	}
	lastFrame := bLog[bState.end-frameLen(bLog, bState):]
	// Into b's own log again, as a replay at the next position.
	replay := append(append([]byte(nil), bLog...), lastFrame...)
	os.WriteFile(b.logFile(), replay, 0o600)
	expectRefused(t, a, b.logFile(), "fails its MAC")
	os.WriteFile(b.logFile(), bLog, 0o600)
	a.merge()
	// Into a third device's log made with the folder's key.
	c := newDevice(t, "c", a.s.dir, false)
	c.store("the cafe closes at six")
	cLog, _ := os.ReadFile(c.logFile())
	os.WriteFile(c.logFile(), append(cLog, lastFrame...), 0o600)
	expectRefused(t, a, c.logFile(), "fails its MAC")
	_ = aLog
}

// frameLen is the length of the last whole frame of a parsed log.
func frameLen(b []byte, st *logState) int64 {
	off := int64(logHeaderSize)
	var last int64
	for range st.ops {
		n := int64(uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24)
		last = frameHead + n
		off += last
	}
	return last
}

func TestOlderLogCopyIsRefused(t *testing.T) {
	_, a, b := pair(t)
	old, _ := os.ReadFile(b.logFile())
	b.store("the build server is in rack four")
	a.merge()
	if err := os.WriteFile(b.logFile(), old, 0o600); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, a, b.logFile(), "older copy")
	// A fork: the old copy with a different operation appended.
	b.s.own.st, b.s.own.fi = nil, nil
	b.store("the cafe closes at six")
	expectRefused(t, a, b.logFile(), "forked or replaced")
}

// TestUnknownDeviceIsIgnored: a log with no valid entry on the device list
// (even one sealed with the right key) contributes nothing; nor does an
// entry signed with another key.
func TestUnknownDeviceIsIgnored(t *testing.T) {
	folder, a, _ := pair(t)
	// A log made with the right key by a device that never wrote a .dev.
	ghost, _ := randomID()
	o := &ownLog{dir: folder, device: ghost, k: a.s.keys}
	id, _ := randomID()
	body := vault.SyncRecordBody(&vault.Record{Text: "planted memory", Source: "x", Namespace: "main"}, false)
	if err := o.append([]Op{{Kind: OpStore, Device: ghost, Clock: Clock{Wall: 1}, Target: id, Payload: body}}); err != nil {
		t.Fatal(err)
	}
	// And a device entry signed under another folder's key.
	other, _ := deriveFolderKeys(make([]byte, 32), a.s.keys.folderID)
	forged, _ := randomID()
	writeDevice(folder, other, &Device{ID: forged, Name: "forged"})
	fo := &ownLog{dir: folder, device: forged, k: a.s.keys}
	fo.append([]Op{{Kind: OpStore, Device: forged, Clock: Clock{Wall: 1}, Target: id, Payload: body}})
	before := a.liveTexts()
	rep := a.merge()
	if got := a.liveTexts(); strings.Join(got, "|") != strings.Join(before, "|") {
		t.Fatalf("an unlisted device's memory was merged: %q", got)
	}
	msg := strings.Join(rep.Ignored, "\n")
	for _, want := range []string{hex.EncodeToString(ghost[:]), "not on the folder's signed device list", "signature fails"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("ignored: %q, want it to mention %q", msg, want)
		}
	}
}

// TestPartialLogReadsWholeFrames: a log cut inside a frame (a copy in
// progress) is read up to its last whole frame, and the rest once it
// arrives; the engine's temporary files and conflict copies are ignored.
func TestPartialLogReadsWholeFrames(t *testing.T) {
	folder, a, b := pair(t)
	b.store("the build server is in rack four")
	b.store("the cafe closes at six")
	full, _ := os.ReadFile(b.logFile())
	os.WriteFile(b.logFile(), full[:len(full)-30], 0o600)
	for _, junk := range []string{".syncthing." + filepath.Base(b.logFile()) + ".tmp", "~syncthing~x.tmp",
		strings.TrimSuffix(filepath.Base(b.logFile()), ".log") + ".sync-conflict-20261201-120000-ABCDEFG.log", "." + filepath.Base(b.logFile()) + ".Xy12Ab"} {
		os.WriteFile(filepath.Join(folder, junk), []byte("garbage that is not a log"), 0o600)
	}
	os.Mkdir(filepath.Join(folder, ".stfolder"), 0o700)
	rep := a.merge()
	if got := a.liveTexts(); len(got) != 3 {
		t.Fatalf("a after a partial copy holds %q, want the whole frames' 3", got)
	}
	if len(rep.Copying) != 1 {
		t.Fatalf("copying %v, want b's log", rep.Copying)
	}
	os.WriteFile(b.logFile(), full, 0o600)
	a.merge()
	if got := a.liveTexts(); len(got) != 4 {
		t.Fatalf("a after the copy finished holds %q", got)
	}
}

// TestShredRemovesContentFromEveryLog: after every device merged a shred,
// no log in the folder holds the record's content.
func TestShredRemovesContentFromEveryLog(t *testing.T) {
	folder, a, b := pair(t)
	secret := "the alarm code is 4417"
	id := b.store(secret)
	a.merge()
	// a holds it too; a edits nothing, but an edit op from a would carry
	// the content as well: give one by retagging through a supersede.
	if _, err := a.v.Forget(id, true); err != nil {
		t.Fatal(err)
	}
	b.merge()
	a.merge()
	for _, d := range []*device{a, b} {
		if _, err := d.v.Get(id); err == nil {
			t.Fatalf("%s still holds the shredded memory", d.name)
		}
	}
	ents, _ := os.ReadDir(folder)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		dev, _ := hex.DecodeString(strings.TrimSuffix(e.Name(), ".log"))
		st, err := readLog(filepath.Join(folder, e.Name()), a.s.keys, [16]byte(dev))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := vault.ParseID(id)
		for _, o := range st.ops {
			if o.Target == raw && o.Kind.carriesContent() {
				t.Fatalf("%s still holds a %s frame of the shredded record", e.Name(), o.Kind)
			}
			if strings.Contains(string(o.Payload), "4417") {
				t.Fatalf("%s still holds the shredded text", e.Name())
			}
		}
	}
	// And the rewritten log is accepted as newer, not as an older copy.
	if _, err := a.s.Merge(); err != nil {
		t.Fatal(err)
	}
}

// TestOwnLogPutBackIsNotForked: when an engine puts an older copy of a
// device's own log back, the device refuses to write rather than fork its
// log, saying why.
func TestOwnLogPutBackIsNotForked(t *testing.T) {
	_, a, _ := pair(t)
	old, _ := os.ReadFile(a.logFile())
	a.store("the build server is in rack four")
	a.merge()
	os.WriteFile(a.logFile(), old, 0o600)
	_, err := a.v.Store(vault.StoreRequest{Text: "the cafe closes at six", Source: "test"})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "older copy") {
		t.Fatalf("a store onto an older copy of the own log: %v", err)
	}
}
