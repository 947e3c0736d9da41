package vaultfmt

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fastKDF keeps tests quick; TestDefaultKDF covers the real parameters.
var fastKDF = KDFParams{Time: 1, MemoryKiB: 64, Threads: 1}

var testPass = []byte("correct horse battery staple")

// collector is a Handler that keeps the vault's contents in a map.
type collector struct {
	items  map[ID]Item
	order  []Change
	resets int
}

func newCollector() *collector { return &collector{items: map[ID]Item{}} }

func (c *collector) Reset() {
	c.items = map[ID]Item{}
	c.order = nil
	c.resets++
}

func (c *collector) Apply(ch Change) error {
	c.order = append(c.order, ch)
	switch ch.Op {
	case OpPut:
		c.items[ch.Item.ID] = ch.Item
	case OpDelete:
		delete(c.items, ch.Item.ID)
	default:
		return fmt.Errorf("unknown op %d", ch.Op)
	}
	return nil
}

// applyOwn mirrors what a caller does after its own Append succeeds.
func (c *collector) applyOwn(t testing.TB, changes []Change) {
	t.Helper()
	for _, ch := range changes {
		if err := c.Apply(ch); err != nil {
			t.Fatal(err)
		}
	}
}

// ids lists the collected ids in sorted order.
func (c *collector) ids() []ID {
	out := make([]ID, 0, len(c.items))
	for id := range c.items {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i][:], out[j][:]) < 0 })
	return out
}

func testID(n int) ID {
	var id ID
	binary.BigEndian.PutUint64(id[8:], uint64(n))
	id[0] = 0xA5
	return id
}

func put(n int, body string) Change {
	return Change{Op: OpPut, Item: Item{ID: testID(n), Kind: Kind(n%3 + 1), Body: []byte(body)}}
}

func del(n int) Change { return Change{Op: OpDelete, Item: Item{ID: testID(n)}} }

// newTestVault creates a vault with the fast KDF in a temp dir.
func newTestVault(t testing.TB) (string, *Vault, *collector) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.vault")
	c := newCollector()
	v, err := Create(path, CreateOptions{Slot: SlotSpec{Kind: SlotPassphrase, Passphrase: testPass, KDF: fastKDF}}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return path, v, c
}

func mustAppend(t testing.TB, v *Vault, c *collector, changes ...Change) {
	t.Helper()
	if err := v.Append(changes); err != nil {
		t.Fatal(err)
	}
	if c != nil {
		c.applyOwn(t, changes)
	}
}

// reopen opens path with the test passphrase into a fresh collector.
func reopen(t testing.TB, path string) (*Vault, *collector) {
	t.Helper()
	c := newCollector()
	v, err := Open(path, Unlock{Passphrase: testPass}, c)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	return v, c
}

// openErr opens path and returns only the error (closing on success).
func openErr(path string, u Unlock) error {
	v, err := Open(path, u, newCollector())
	if err == nil {
		v.Close()
	}
	return err
}

func sameItems(t testing.TB, got, want *collector) {
	t.Helper()
	if len(got.items) != len(want.items) {
		t.Fatalf("got %d items, want %d", len(got.items), len(want.items))
	}
	for id, w := range want.items {
		g, ok := got.items[id]
		if !ok || g.Kind != w.Kind || !bytes.Equal(g.Body, w.Body) {
			t.Fatalf("item %x: got %+v (present %v), want %+v", id, g, ok, w)
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func randomBody(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func wantErr(t testing.TB, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got %v, want %v", what, err, target)
	}
}
