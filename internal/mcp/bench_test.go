package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchMemories is the size of the vault the round-trip benchmarks run
// against.
const benchMemories = 2000

// BenchmarkMCPRoundTrip measures whole tool calls as an agent sees them:
// the SDK client in Node.js, stdio, JSON-RPC, the server, the vault and
// back. Run with
//
//	go test -run '^$' -bench MCPRoundTrip -benchtime 200x ./internal/mcp
//
// p50-ms and p95-ms are per call; ns/op includes the bridge's own line
// round trip.
func BenchmarkMCPRoundTrip(b *testing.B) {
	f := newFixture(b)
	preload(b, f, benchMemories)
	br := startBridge(b)
	br.connect(f.env(true))
	defer br.close()
	for _, bc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"search", "memory_search", map[string]any{"query": "which host runs service svc-{i}"}},
		{"search-top5", "memory_search", map[string]any{"query": "backup schedule of project {i}", "top_k": 5}},
		{"store", "memory_store", map[string]any{"text": "Benchmark claim {i}: the build cache lives on disk {i}", "source": "benchmark"}},
		{"get-status", "memory_status", map[string]any{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var r struct {
				P50 float64 `json:"p50_ms"`
				P95 float64 `json:"p95_ms"`
				Max float64 `json:"max_ms"`
			}
			b.ResetTimer()
			br.must(map[string]any{"op": "bench", "name": bc.tool, "arguments": bc.args, "n": b.N}, &r)
			b.ReportMetric(r.P50, "p50-ms")
			b.ReportMetric(r.P95, "p95-ms")
		})
	}
	var st struct {
		Server struct {
			RSS int64 `json:"rss_bytes"`
		} `json:"server"`
	}
	br.ok("memory_status", nil, &st)
	b.Logf("server RSS after the benchmarks, %d memories: %.1f MB", benchMemories, float64(st.Server.RSS)/1e6)
}

// preload imports n varied memories with the real binary (so they are
// embedded with the model the server will load).
func preload(b *testing.B, f fixture, n int) {
	b.Helper()
	people := []string{"Priya", "Max", "Ana", "Tomas", "Lena", "Omar", "Yuki", "Sam"}
	things := []string{"the billing service", "the staging database", "the VPN gateway", "the nightly backup",
		"the design review", "the release train", "the office printer", "the CI runners"}
	var lines []string
	for i := range n {
		var text string
		switch i % 3 {
		case 0:
			text = fmt.Sprintf("Service svc-%d runs on host h%d.internal and listens on port %d", i, i%97, 1000+i)
		case 1:
			text = fmt.Sprintf("%s owns %s for project %d since week %d", people[i%len(people)], things[(i/8)%len(things)], i, i%52)
		default:
			text = fmt.Sprintf("The backup schedule of project %d is every %d hours to bucket b-%d", i, 1+i%24, i)
		}
		lines = append(lines, fmt.Sprintf(`{"text":%q,"source":"benchmark preload"}`, text))
	}
	path := filepath.Join(f.dir, "preload.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(compartment.Path(b), "import", path)
	for k, v := range f.env(true) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("import: %v\n%s", err, out)
	}
}
