package mcp_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/mcp"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// clock is a settable time source shared with the vault.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestPeriodicSweepRemovesExpired runs the server in-process with a short
// sweep period and moves the vault's clock past a memory's last day. While
// nobody calls a tool the sweep must leave the vault alone (taking it from
// the keeper would count as use and hold off auto-lock); once a call that
// does not touch the vault itself (memory_status) shows the server is in
// use, the periodic sweep removes the memory.
func TestPeriodicSweepRemovesExpired(t *testing.T) {
	f := newFixture(t)
	t.Setenv("COMPARTMENT_PASSPHRASE", testPassphrase)
	t.Setenv("COMPARTMENT_SESSION_DIR", filepath.Join(f.dir, "session"))
	t.Setenv("COMPARTMENT_BOOT_SECRET_DIR", filepath.Join(f.dir, "boot"))
	clk := &clock{t: time.Date(2026, 6, 15, 12, 0, 0, 0, time.Local)}
	srv := mcp.New(mcp.Options{
		VaultPath: f.vault, SweepEvery: 20 * time.Millisecond,
		Open: func(u vaultfmt.Unlock) (*vault.Vault, error) {
			return vault.Open(f.vault, vault.Options{Unlock: u, Now: clk.now})
		},
	})
	ctx := serveInProcess(t, srv)

	v, err := srv.Keeper().Vault()
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Store(vault.StoreRequest{Text: "The door code is 1234 this week", Source: "from chat", Expires: "3d"})
	if err != nil {
		t.Fatal(err)
	}
	keep, err := v.Store(vault.StoreRequest{Text: "The office is on the third floor", Source: "from chat"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // several sweeps: nothing is due yet
	if _, err := v.Get(res.ID); err != nil {
		t.Fatalf("swept before its last day: %v", err)
	}
	clk.add(4 * 24 * time.Hour)
	time.Sleep(200 * time.Millisecond) // ten idle periods
	if _, err := v.Get(res.ID); err != nil {
		t.Fatalf("an idle server swept: %v", err)
	}
	status := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}`
	if resp := srv.MCPServer().HandleMessage(ctx, json.RawMessage(status)); resp == nil {
		t.Fatal("no response to memory_status")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := v.Get(res.ID)
		if errors.Is(err, vault.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the periodic sweep did not remove the expired memory (get: %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := v.Get(keep.ID); err != nil {
		t.Errorf("the sweep removed a memory without expiry: %v", err)
	}
}
