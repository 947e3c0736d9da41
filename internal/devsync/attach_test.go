package devsync

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAttachIfSynced: a vault with no sync folder is left alone; one that
// has one is attached and merges what the other device wrote.
func TestAttachIfSynced(t *testing.T) {
	clearEnv(t)
	lone := newDevice(t, "lone", "", false)
	if s, rep, err := AttachIfSynced(lone.v); s != nil || err != nil || rep.Written+rep.Logged != 0 {
		t.Fatalf("a vault with no sync folder: %v %+v %v", s, rep, err)
	}
	folder := t.TempDir()
	a := newDevice(t, "a", folder, true)
	b := newDevice(t, "b", folder, false)
	a.store("The boiler was serviced in March.")
	b.close()
	b.v = openVault(t, b.path)
	s, rep, err := AttachIfSynced(b.v)
	if s == nil || err != nil || rep.Written != 1 {
		t.Fatalf("synced vault: %v %+v %v", s, rep, err)
	}
	b.s = s
}

// TestInitTakesTheVaultsKDF: a folder key made without KDF parameters
// costs what the vault's own key slot costs, not the (much larger)
// default.
func TestInitTakesTheVaultsKDF(t *testing.T) {
	clearEnv(t)
	d := newDevice(t, "a", "", false)
	folder := t.TempDir()
	s, _, err := Init(d.v, folder, SetupOptions{Passphrase: testPass})
	if err != nil {
		t.Fatal(err)
	}
	d.s = s
	kf, err := readKeyFile(folder)
	if err != nil {
		t.Fatal(err)
	}
	sl := kf.slot[:]
	if sl[2] != testKDF.Threads || binary.LittleEndian.Uint32(sl[4:]) != testKDF.Time || binary.LittleEndian.Uint32(sl[8:]) != testKDF.MemoryKiB {
		t.Fatalf("folder key slot %x, want the vault's %+v", sl[:12], testKDF)
	}
}

// TestServe: the server's vault merges what another device writes while
// it runs, and says so in its log.
func TestServe(t *testing.T) {
	clearEnv(t)
	folder := t.TempDir()
	a := newDevice(t, "a", folder, true)
	b := newDevice(t, "b", folder, false)
	b.close()
	b.v = openVault(t, b.path)
	var logBuf syncBuffer
	Serve(b.v, 20*time.Millisecond, slog.New(slog.NewTextHandler(&logBuf, nil)))
	s, ok := attached.Load(b.v)
	if !ok {
		t.Fatal("Serve did not attach the vault")
	}
	b.s = s.(*Syncer)
	a.store("The spare key is under the blue pot.")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(b.memories(), "\n"), "blue pot") {
		if time.Now().After(deadline) {
			t.Fatalf("not merged; log:\n%s", logBuf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.s.Detach()
	if !strings.Contains(logBuf.String(), "sync: merged") {
		t.Fatalf("log: %s", logBuf.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the watcher's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
