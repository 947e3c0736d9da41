package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
)

// These tests run the built binary for `embed`, `embed-daemon` and
// `setup download-model`, with models, sockets and HOME in temp dirs.

// embedCLI is the built binary.
func embedCLI(t *testing.T) string { return builtBinary(t) }

// repoORTLib finds the ONNX Runtime library `make setup` installs in the
// checkout, or skips loudly.
func repoORTLib(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", ".cache", "lib", "libonnxruntime.so."+embed.ORTVersion))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	msg := "SKIPPING ONNX CLI TEST: ONNX Runtime is not installed in .cache/lib; run `make setup`"
	fmt.Fprintln(os.Stderr, "!!! "+msg)
	t.Skip(msg)
	return ""
}

type embedEnv struct {
	t      *testing.T
	bin    string
	env    []string
	socket string
}

func newEmbedEnv(t *testing.T, extra ...string) *embedEnv {
	dir := t.TempDir()
	sockDir, err := os.MkdirTemp("", "ce")
	if err != nil {
		t.Fatal(err)
	}
	e := &embedEnv{t: t, bin: embedCLI(t), socket: filepath.Join(sockDir, "embed.sock")}
	e.env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		embed.EnvModelsDir + "=" + filepath.Join(dir, "models"),
		embed.EnvEmbedSocket + "=" + e.socket,
		embed.EnvEmbedIdle + "=30",
	}, extra...)
	t.Cleanup(func() {
		e.run("embed-daemon", "stop")
		os.RemoveAll(sockDir)
	})
	return e
}

func (e *embedEnv) run(args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

func (e *embedEnv) ok(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(args...)
	if code != 0 {
		e.t.Fatalf("compartment %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func (e *embedEnv) json(v any, args ...string) {
	e.t.Helper()
	out := e.ok(args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		e.t.Fatalf("compartment %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestONNXCLIEmbedThroughDaemon installs the fixture with --from, embeds
// through the daemon the binary starts itself, and checks status and stop.
func TestONNXCLIEmbedThroughDaemon(t *testing.T) {
	e := newEmbedEnv(t, embed.EnvORTLib+"="+repoORTLib(t))
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "embed", "testdata", "onnx"))
	var installed struct {
		Name, Dir, SHA256 string
		Dim               int
	}
	e.json(&installed, "setup", "download-model", "tiny", "--from", fixture, "--json")
	if installed.Name != "tiny" || installed.Dim != 32 || len(installed.SHA256) != 64 {
		t.Fatalf("installed = %+v", installed)
	}
	var out struct {
		Dim       int       `json:"dim"`
		Model     string    `json:"model"`
		SHA256    string    `json:"sha256"`
		Tokens    int       `json:"tokens"`
		Windows   [][2]int  `json:"windows"`
		Vector    []float64 `json:"vector"`
		DaemonPID int       `json:"daemon_pid"`
	}
	e.json(&out, "embed", "hello world", "--model", "tiny", "--json")
	if out.Dim != 32 || out.Model != "tiny" || out.SHA256 != installed.SHA256 || out.Tokens != 2 ||
		fmt.Sprint(out.Windows) != "[[0 2]]" || len(out.Vector) != 32 {
		t.Fatalf("embed --json = %+v", out)
	}
	var sum float64
	for _, x := range out.Vector {
		sum += x * x
	}
	if math.Abs(sum-1) > 1e-5 || out.DaemonPID == 0 {
		t.Errorf("|v|² = %v, daemon pid %d", sum, out.DaemonPID)
	}
	var st embed.DaemonStatus
	e.json(&st, "embed-daemon", "status", "--json")
	if !st.Running || st.PID != out.DaemonPID || st.Model != "tiny" || st.RSSMB <= 0 {
		t.Errorf("status = %+v", st)
	}
	// The query gets the prefix: more tokens, another vector.
	var q struct {
		Tokens int       `json:"tokens"`
		Vector []float64 `json:"vector"`
	}
	e.json(&q, "embed", "hello world", "--query", "--model", "tiny", "--json")
	if q.Tokens <= out.Tokens || fmt.Sprint(q.Vector) == fmt.Sprint(out.Vector) {
		t.Errorf("query: %d tokens, same vector %v", q.Tokens, fmt.Sprint(q.Vector) == fmt.Sprint(out.Vector))
	}
	text := e.ok("embed", "hello world", "--model", "tiny")
	for _, want := range []string{"model    tiny", "dim      32", "tokens   2", "windows  1: [0,2)", "by the embedding daemon"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	var stopped map[string]bool
	e.json(&stopped, "embed-daemon", "stop", "--json")
	e.json(&st, "embed-daemon", "status", "--json")
	if !stopped["stopped"] || st.Running {
		t.Errorf("after stop: %v, status %+v", stopped, st)
	}
}

func TestONNXCLIMissingRuntime(t *testing.T) {
	e := newEmbedEnv(t, embed.EnvORTLib+"=/nonexistent/libonnxruntime.so.1.24.1", embed.EnvEmbedDaemon+"=0")
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "embed", "testdata", "onnx"))
	e.ok("setup", "download-model", "tiny", "--from", fixture)
	_, errOut, code := e.run("embed", "hello", "--model", "tiny")
	if code == 0 || !strings.Contains(errOut, "make setup") || !strings.Contains(errOut, embed.EnvORTLib) {
		t.Errorf("exit %d, stderr %q; want a failure saying how to install ONNX Runtime", code, errOut)
	}
	// The static model needs no runtime.
	if out := e.ok("embed", "hello", "--model", "static"); !strings.Contains(out, embed.StaticModelName) {
		t.Errorf("static model output:\n%s", out)
	}
}

func TestONNXCLIDownloadRefusals(t *testing.T) {
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("these are not the weights you are looking for"))
	}))
	defer hub.Close()
	e := newEmbedEnv(t, embed.EnvModelBaseURL+"="+hub.URL)
	_, errOut, code := e.run("setup", "download-model")
	if code == 0 || !strings.Contains(errOut, "SHA-256") {
		t.Errorf("wrong bytes from the hub: exit %d, %q", code, errOut)
	}
	_, errOut, code = e.run("--assert-offline", "setup", "download-model")
	if code == 0 || !strings.Contains(errOut, "--from") {
		t.Errorf("--assert-offline download: exit %d, %q", code, errOut)
	}
}
