//go:build unix

package bench

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/mcp"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestMCPSearchProfile is TestSearchProfile through the MCP server: it
// serves the kept benchmark vault BENCH_SEARCH_PROFILE_VAULT (a copy)
// in-process over pipes, makes the latency table's memory_search calls
// as the bench's client does (one JSON-RPC line each, waiting for the
// answer) and logs their p50/p95; with BENCH_MCP_PROFILE_OUT=FILE it
// writes a CPU profile of the calls there, server and client. A measuring
// tool (#29), skipped unless the variable is set.
func TestMCPSearchProfile(t *testing.T) {
	path := os.Getenv("BENCH_SEARCH_PROFILE_VAULT")
	if path == "" {
		t.Skip("BENCH_SEARCH_PROFILE_VAULT not set")
	}
	t.Setenv("COMPARTMENT_PASSPHRASE", benchPass)
	t.Setenv("COMPARTMENT_SESSION_DIR", filepath.Join(t.TempDir(), "session"))
	t.Setenv("COMPARTMENT_BOOT_SECRET_DIR", filepath.Join(t.TempDir(), "boot"))
	enc, err := embed.Open(embed.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	srv := mcp.New(mcp.Options{
		VaultPath: path, Caller: "user",
		Open: func(u vaultfmt.Unlock) (*vault.Vault, error) {
			return vault.Open(path, vault.Options{Unlock: u, Caller: "user", Encoder: enc, ReadOnly: true})
		},
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, inR, outW) }()
	defer func() {
		cancel()
		inW.Close()
		outR.Close()
		<-served
	}()
	c := &mcpClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	if _, err := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "compartment-bench", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.notify("notifications/initialized"); err != nil {
		t.Fatal(err)
	}
	search := func(q string) {
		res, err := c.call("tools/call", map[string]any{"name": "memory_search", "arguments": map[string]any{"query": q}})
		if err != nil || strings.Contains(string(res), `"isError":true`) {
			t.Fatalf("memory_search %q: %v %s", q, err, res)
		}
	}
	queries := pickQueries(100000, 300)
	for _, q := range queries[:30] {
		search(q)
	}
	defer cpuProfileTo(t, os.Getenv("BENCH_MCP_PROFILE_OUT"))()
	lat := fastestOf3(queries, search)
	t.Logf("%d memory_search calls × 3: p50 %v p95 %v", len(queries), lat[len(lat)/2], lat[len(lat)*95/100])
}
