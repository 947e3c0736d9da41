package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/mcp"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestBackgroundRetagPass serves a vault with retag_interval_hours = 1 and
// an "hour" of 30 ms: once a tool call shows the server is in use, the
// background pass gives the old northwind memory the harbour tag its new
// neighbours carry.
func TestBackgroundRetagPass(t *testing.T) {
	f := newFixture(t)
	f.setSetting(t, "retag_interval_hours", "1")
	t.Setenv("COMPARTMENT_PASSPHRASE", testPassphrase)
	t.Setenv("COMPARTMENT_SESSION_DIR", filepath.Join(f.dir, "session"))
	t.Setenv("COMPARTMENT_BOOT_SECRET_DIR", filepath.Join(f.dir, "boot"))
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	srv := mcp.New(mcp.Options{
		VaultPath: f.vault, SweepEvery: 10 * time.Millisecond, RetagHour: 30 * time.Millisecond,
		Open: func(u vaultfmt.Unlock) (*vault.Vault, error) {
			return vault.Open(f.vault, vault.Options{Unlock: u, Encoder: enc})
		},
	})
	ctx := serveInProcess(t, srv)
	v, err := srv.Keeper().Vault()
	if err != nil {
		t.Fatal(err)
	}
	old, err := v.Store(vault.StoreRequest{Text: "The client wants figures before conclusions in every report", Source: "from chat", Tags: []string{"northwind"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"quarterly", "annual", "audit", "budget", "sales", "marketing", "board", "safety", "hiring", "travel", "legal", "design"} {
		res, err := v.Store(vault.StoreRequest{Text: fmt.Sprintf("The Harbour client wants figures before conclusions in the %s report", kind), Source: "from chat", Tags: []string{"harbour"}})
		if err != nil || !res.Stored {
			t.Fatalf("store: %+v %v", res, err)
		}
	}
	status := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}`
	deadline := time.Now().Add(10 * time.Second)
	for {
		srv.MCPServer().HandleMessage(ctx, json.RawMessage(status))
		r, err := v.Get(old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(r.Tags, []string{"northwind", "harbour"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background pass did not retag the memory: tags %v", r.Tags)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serveInProcess runs srv on a pipe nobody writes to until the test ends,
// then stops it and checks it stopped cleanly.
func serveInProcess(t *testing.T, srv *mcp.Server) context.Context {
	t.Helper()
	in, keepOpen := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, in, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		keepOpen.Close()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ctx
}
