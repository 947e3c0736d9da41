package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/mcp"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

func TestScratchMCPHeap(t *testing.T) {
	runtime.MemProfileRate = 512
	enc, _ := embed.OpenStatic()
	t.Setenv("COMPARTMENT_PASSPHRASE", "correct horse battery staple")
	path := "/tmp/i18/scratch.vault"
	srv := mcp.New(mcp.Options{VaultPath: path, Open: func(u vaultfmt.Unlock) (*vault.Vault, error) {
		return vault.Open(path, vault.Options{Unlock: u, Encoder: enc})
	}})
	ctx := context.Background()
	qs := bench.GenerateClaims(5, 300)
	for _, q := range qs {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "memory_search", "arguments": map[string]any{"query": q.Query}}})
		srv.MCPServer().HandleMessage(ctx, b)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("live heap %.1f MB\n", float64(m.HeapAlloc)/1e6)
	f, _ := os.Create("/tmp/i18/heap_mcp.out")
	pprof.WriteHeapProfile(f)
	f.Close()
}
