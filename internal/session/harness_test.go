package session_test

// Harness for the end-to-end tests: the real compartment binary, built once
// into a temp dir, run as real processes with HOME, the session directory,
// the boot secret directory and the boot id all pointing into t.TempDir().

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/testbin"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// testPass is the passphrase of every test vault.
const testPass = "correct horse battery staple"

// compartment is the CLI under test, built once per test run with the
// environment from before any test changed it: the build must see the
// real HOME and Go caches, not a test's temp home.
var compartment = testbin.Command{Pkg: testbin.Compartment}

func TestMain(m *testing.M) {
	compartment.Env = os.Environ()
	// Hermetic: whatever COMPARTMENT_* the user has set (the README tells
	// them to set COMPARTMENT_PASSPHRASE) must not reach a test that did
	// not set it itself.
	for _, kv := range compartment.Env {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "COMPARTMENT_") {
			os.Unsetenv(name)
		}
	}
	// The suite's own setting: the wrong-passphrase pause is 100 ms, not
	// the 5 s users get (each in-process wrong try would wait 5 s).
	os.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
	code := m.Run()
	compartment.Remove()
	os.Exit(code)
}

// binary builds cmd/compartment once per test run.
func binary(t testing.TB) string {
	t.Helper()
	return compartment.Path(t)
}

// env is one isolated user: home, session and boot secret directories, a
// boot id file, and a vault path.
type env struct {
	t     testing.TB
	dir   string
	vault string
	boot  string // the boot id file
	vars  []string
}

// newEnv makes an isolated user. Only the child processes see it: this
// process's environment is left alone, so tests can run in parallel.
func newEnv(t testing.TB, extra ...string) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, dir: dir, vault: filepath.Join(dir, "home", ".compartment", "memory.vault"), boot: filepath.Join(dir, "boot_id")}
	e.setBootID()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COMPARTMENT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			e.vars = append(e.vars, kv)
		}
	}
	own := []string{
		"HOME=" + filepath.Join(dir, "home"),
		session.EnvSessionDir + "=" + filepath.Join(dir, "sessions"),
		session.EnvBootSecretDir + "=" + filepath.Join(dir, "bootsecret"),
		session.EnvBootIDFile + "=" + e.boot,
		"COMPARTMENT_UNLOCK_DELAY_MS=100",
		"COMPARTMENT_EMBED_DAEMON=0",
		"COMPARTMENT_VAULT=" + e.vault,
	}
	e.vars = append(append(e.vars, own...), extra...)
	return e
}

// credPath is where the vault at path keeps its credential in e.
func (e *env) credPath(path string) string {
	return session.CredentialPathIn(filepath.Join(e.dir, "sessions"), path)
}

// setBootID simulates a (re)boot: a new random boot id.
func (e *env) setBootID() {
	var b [16]byte
	rand.Read(b[:])
	if err := os.WriteFile(e.boot, []byte(hex.EncodeToString(b[:])+"\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// result is one finished command.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// run runs the binary with stdin and extra environment (KEY=VALUE).
func (e *env) run(stdin string, extra []string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(binary(e.t), args...)
	cmd.Env = append(append([]string(nil), e.vars...), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// ok runs a command that must succeed and returns its stdout.
func (e *env) ok(stdin string, extra []string, args ...string) string {
	e.t.Helper()
	r := e.run(stdin, extra, args...)
	if r.code != 0 {
		e.t.Fatalf("compartment %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// fails runs a command that must fail and returns its stderr.
func (e *env) fails(stdin string, extra []string, args ...string) string {
	e.t.Helper()
	r := e.run(stdin, extra, args...)
	if r.code == 0 {
		e.t.Fatalf("compartment %s succeeded, want a failure\nstdout: %s", strings.Join(args, " "), r.stdout)
	}
	return r.stderr
}

// withPass is the environment that carries the test passphrase.
var withPass = []string{session.EnvPassphrase + "=" + testPass}

// initVault creates the vault in this process with light Argon2id
// parameters (stored in its key slot), so the many passphrase unlocks of
// these tests stay cheap; TestUnlockOnceForEveryProcess uses the real
// `compartment init` instead.
func (e *env) initVault() { e.initVaultAt(e.vault) }

func (e *env) initVaultAt(path string) {
	e.t.Helper()
	v, err := vault.Create(path, vault.Options{
		Unlock: vaultfmt.Unlock{Passphrase: []byte(testPass)},
		KDF:    vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	v.Close()
}

// unlock runs `compartment unlock` with the passphrase on stdin.
func (e *env) unlock(args ...string) string {
	e.t.Helper()
	return e.ok(testPass+"\n", nil, append([]string{"unlock", "--passphrase-stdin"}, args...)...)
}

// store stores text from a fresh CLI process and returns the id.
func (e *env) store(text string, extra ...string) string {
	e.t.Helper()
	out := e.ok("", extra, "store", text, "--source", "test", "--namespace", "test", "--json")
	var res struct {
		ID     string `json:"id"`
		Stored bool   `json:"stored"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Stored {
		e.t.Fatalf("store %q: %v: %s", text, err, out)
	}
	return res.ID
}

// mustBeLocked asserts the error a locked vault gives.
func mustBeLocked(t testing.TB, what, msg string) {
	t.Helper()
	// The CLI says "locked: run `compartment unlock`"; the MCP server
	// words it for the model but names the same command.
	if !strings.Contains(msg, "locked") || !strings.Contains(msg, "`compartment unlock`") {
		t.Fatalf("%s: want the locked error, got: %s", what, msg)
	}
}

// mcpClient drives one `compartment serve` process over JSON-RPC on stdio
// (newline-delimited messages).
type mcpClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	next   int
}

// startMCP starts a server and completes the initialize handshake.
func (e *env) startMCP(extra ...string) *mcpClient {
	e.t.Helper()
	c, err := e.tryStartMCP(extra...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(c.close)
	return c
}

func (e *env) tryStartMCP(extra ...string) (*mcpClient, error) {
	cmd := exec.Command(binary(e.t), "serve")
	cmd.Env = append(append([]string(nil), e.vars...), extra...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &mcpClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = &syncWriter{w: c.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	_, err = c.request("initialize", map[string]any{
		"protocolVersion": "2025-03-26",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "session-test", "version": "0"},
	})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("mcp initialize: %w (stderr: %s)", err, c.stderr)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (c *mcpClient) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// request sends one request and returns its result, skipping any
// notifications the server sends meanwhile.
func (c *mcpClient) request(method string, params any) (json.RawMessage, error) {
	c.next++
	id := c.next
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("mcp read: %w", err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("mcp: bad message %q: %w", line, err)
		}
		if msg.ID == nil || *msg.ID != id {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("mcp error %d: %s", msg.Error.Code, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// toolResult is a tools/call answer.
type toolResult struct {
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structuredContent"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// call runs one tool. A tool-level failure comes back as an error holding
// the tool's message.
func (c *mcpClient) call(tool string, args map[string]any) (toolResult, error) {
	raw, err := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return toolResult{}, err
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("mcp: bad tool result: %w", err)
	}
	if r.IsError {
		return r, fmt.Errorf("%s: %s", tool, r.text())
	}
	return r, nil
}

// store stores one memory and returns its id.
func (c *mcpClient) store(text, namespace string) (string, error) {
	r, err := c.call("memory_store", map[string]any{"text": text, "source": "soak test", "namespace": namespace})
	if err != nil {
		return "", err
	}
	var out struct {
		ID     string `json:"id"`
		Stored bool   `json:"stored"`
	}
	if err := json.Unmarshal(r.Structured, &out); err != nil || !out.Stored || out.ID == "" {
		return "", fmt.Errorf("memory_store: unexpected answer %s (%v)", r.Structured, err)
	}
	return out.ID, nil
}

// search returns the ids memory_search finds for query.
func (c *mcpClient) search(query, namespace string) ([]string, error) {
	r, err := c.call("memory_search", map[string]any{"query": query, "namespace": namespace})
	if err != nil {
		return nil, err
	}
	var out struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.Structured, &out); err != nil {
		return nil, fmt.Errorf("memory_search: unexpected answer %s: %w", r.Structured, err)
	}
	ids := make([]string, len(out.Results))
	for i, h := range out.Results {
		ids[i] = h.ID
	}
	return ids, nil
}

// close ends the server politely (stdin closed) and waits.
func (c *mcpClient) close() {
	if c.cmd.ProcessState != nil {
		return
	}
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// kill ends the server with SIGKILL, as a crash would.
func (c *mcpClient) kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	c.cmd.Process.Kill()
	c.cmd.Wait()
}
