package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/hermetic"
	"github.com/compartment/compartment/internal/testbin"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// The end-to-end tests drive the real `compartment serve` binary with the
// official MCP TypeScript SDK client (testdata/client, installed by
// scripts/setup.d/50-mcp-client.sh), through a small line-oriented bridge
// (testdata/client/bridge.mjs) so the assertions stay in Go.

const testPassphrase = "correct horse battery staple"

// cheapKDF keeps Argon2id fast in tests; the default is tested in vaultfmt.
var cheapKDF = vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}

// compartment is the CLI under test, built once per test run.
var compartment = testbin.Command{Pkg: testbin.Compartment}

func TestMain(m *testing.M) {
	hermetic.Clear()
	code := m.Run()
	compartment.Remove()
	os.Exit(code)
}

// clientDir holds the npm-installed SDK and the bridge.
func clientDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "client"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("\n\n*** SKIPPED: the MCP client from npm is not installed (internal/mcp/testdata/client/node_modules).\n" +
			"*** Run `make setup` (scripts/setup.d/50-mcp-client.sh) to install it; `make test` does this first.\n")
	}
	return dir
}

// fixture is a vault in a temp dir and the environment a server needs to
// use it without touching the real home directory or session.
type fixture struct {
	dir   string
	vault string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	dir := t.TempDir()
	f := fixture{dir: dir, vault: filepath.Join(dir, "memory.vault")}
	v, err := vault.Create(f.vault, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(testPassphrase)}, KDF: cheapKDF})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

// setSetting changes one setting in the vault's config file.
func (f fixture) setSetting(t testing.TB, key, value string) {
	t.Helper()
	cfg, err := vault.LoadConfig(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetSetting(key, value); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(f.vault); err != nil {
		t.Fatal(err)
	}
}

// env is the server's environment; withPass puts the passphrase in
// COMPARTMENT_PASSPHRASE, extra adds KEY=VALUE pairs.
func (f fixture) env(withPass bool, extra ...string) map[string]string {
	e := map[string]string{
		"HOME":                        filepath.Join(f.dir, "home"),
		"PATH":                        os.Getenv("PATH"),
		"COMPARTMENT_VAULT":           f.vault,
		"COMPARTMENT_SESSION_DIR":     filepath.Join(f.dir, "session"),
		"COMPARTMENT_BOOT_SECRET_DIR": filepath.Join(f.dir, "boot"),
		"COMPARTMENT_UNLOCK_DELAY_MS": "100",
	}
	if withPass {
		e["COMPARTMENT_PASSPHRASE"] = testPassphrase
	}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return e
}

// bridge is a running bridge.mjs with its SDK client.
type bridge struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startBridge(t testing.TB) *bridge {
	t.Helper()
	dir := clientDir(t)
	cmd := exec.Command("node", filepath.Join(dir, "bridge.mjs"))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node (Node.js 18 or newer is needed): %v", err)
	}
	b := &bridge{t: t, cmd: cmd, in: in, lines: make(chan string)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return b
}

type bridgeReply struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
	MS     float64         `json:"ms"`
}

// send sends one request and waits for its reply.
func (b *bridge) send(req map[string]any) bridgeReply {
	b.t.Helper()
	line, err := json.Marshal(req)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		b.t.Fatalf("bridge: write: %v", err)
	}
	select {
	case l, ok := <-b.lines:
		if !ok {
			b.t.Fatalf("bridge exited while waiting for the reply to %s", line)
		}
		var r bridgeReply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			b.t.Fatalf("bridge: bad reply %q: %v", l, err)
		}
		if os.Getenv("BRIDGE_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "bridge %v %v: %.1f ms\n", req["op"], req["name"], r.MS)
		}
		return r
	case <-time.After(60 * time.Second):
		b.t.Fatalf("bridge: no reply in 60s to %s", line)
	}
	return bridgeReply{}
}

// must sends a request that has to succeed and decodes its result.
func (b *bridge) must(req map[string]any, into any) {
	b.t.Helper()
	r := b.send(req)
	if !r.OK {
		b.t.Fatalf("%v: %s", req["op"], r.Error)
	}
	if into != nil {
		if err := json.Unmarshal(r.Result, into); err != nil {
			b.t.Fatalf("%v: decode %s: %v", req["op"], r.Result, err)
		}
	}
}

// connect starts `compartment serve` under the SDK client.
func (b *bridge) connect(env map[string]string, args ...string) {
	b.t.Helper()
	b.must(map[string]any{"op": "connect", "command": compartment.Path(b.t), "args": append([]string{"serve"}, args...), "env": env}, nil)
}

type closeResult struct {
	Stderr         string   `json:"stderr"`
	ProtocolErrors []string `json:"protocol_errors"`
}

// close ends the server and checks that it wrote nothing but protocol to
// stdout.
func (b *bridge) close() closeResult {
	b.t.Helper()
	var r closeResult
	b.must(map[string]any{"op": "close"}, &r)
	if len(r.ProtocolErrors) > 0 {
		b.t.Errorf("the client saw protocol errors (stdout must carry only protocol): %q\nserver stderr:\n%s", r.ProtocolErrors, r.Stderr)
	}
	return r
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

func (r toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// call calls a tool; the SDK has validated any structured result against
// the tool's output schema by the time it returns.
func (b *bridge) call(name string, args map[string]any) toolResult {
	b.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	r := b.send(map[string]any{"op": "call", "name": name, "arguments": args})
	if !r.OK {
		b.t.Fatalf("%s(%v): client error: %s", name, args, r.Error)
	}
	var tr toolResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		b.t.Fatalf("%s: decode %s: %v", name, r.Result, err)
	}
	return tr
}

// ok calls a tool that must succeed and decodes its structured result.
func (b *bridge) ok(name string, args map[string]any, into any) {
	b.t.Helper()
	r := b.call(name, args)
	if r.IsError {
		b.t.Fatalf("%s(%v) failed: %s", name, args, r.text())
	}
	if len(r.Structured) == 0 {
		b.t.Fatalf("%s: no structuredContent", name)
	}
	var text any
	if err := json.Unmarshal([]byte(r.text()), &text); err != nil {
		b.t.Errorf("%s: the text content is not the JSON of the result: %v", name, err)
	}
	if into != nil {
		if err := json.Unmarshal(r.Structured, into); err != nil {
			b.t.Fatalf("%s: decode %s: %v", name, r.Structured, err)
		}
	}
}

// fails calls a tool that must fail and returns its message.
func (b *bridge) fails(name string, args map[string]any) string {
	b.t.Helper()
	r := b.call(name, args)
	if !r.IsError {
		b.t.Fatalf("%s(%v) should have failed, got %s", name, args, r.Structured)
	}
	return r.text()
}
