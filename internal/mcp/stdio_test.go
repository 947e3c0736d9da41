package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// appendToolResult must write exactly what encoding/json writes for the
// same response, for every result wrap can make: HTML-escaped characters,
// line separators, invalid UTF-8, nesting, string and number ids.
func TestAppendToolResultMatchesEncodingJSON(t *testing.T) {
	values := []any{
		map[string]any{"count": 0, "results": []any{}},
		map[string]any{"text": `a <b> & "c" \ d`, "score": 0.6152465148483091, "tags": []string{"x", "y"}},
		map[string]any{"text": "line\u2028sep\u2029 tab\t nl\n ctrl\x01 emoji 🙂 é", "n": -1e300},
		map[string]any{"bad": "\xff\xfe invalid utf-8", "nested": map[string]any{"a": []any{nil, true, 1.5}}},
		[]int{1, 2, 3},
		"just a string",
	}
	ids := []any{int64(1), 22, "req-7", "<id>"}
	for _, v := range values {
		text, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			res := mcpgo.NewToolResultStructured(json.RawMessage(text), string(text))
			resp := mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), res)
			want, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			got, ok := appendToolResult(nil, resp, res)
			if !ok {
				t.Fatalf("%s: not encoded", text)
			}
			if string(got) != string(want) {
				t.Errorf("id %v:\n got %s\nwant %s", id, got, want)
			}
		}
	}
}

// A result of any other shape is left to encoding/json.
func TestAppendToolResultDeclinesOtherShapes(t *testing.T) {
	text := json.RawMessage(`{"a":1}`)
	for name, res := range map[string]*mcpgo.CallToolResult{
		"error":        mcpgo.NewToolResultError("no"),
		"plain text":   mcpgo.NewToolResultText("hi"),
		"not raw":      mcpgo.NewToolResultStructured(map[string]any{"a": 1}, `{"a":1}`),
		"two contents": {Content: []mcpgo.Content{mcpgo.NewTextContent("a"), mcpgo.NewTextContent("b")}, StructuredContent: text},
		"meta":         {Result: mcpgo.Result{Meta: &mcpgo.Meta{}}, Content: []mcpgo.Content{mcpgo.NewTextContent("a")}, StructuredContent: text},
		"result type":  {Result: mcpgo.Result{ResultType: "complete"}, Content: []mcpgo.Content{mcpgo.NewTextContent("a")}, StructuredContent: text},
	} {
		resp := mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(1), res)
		if _, ok := appendToolResult(nil, resp, res); ok {
			t.Errorf("%s: encoded by hand", name)
		}
	}
}

// serveLines runs a real server (no vault: only what needs none) over the
// given input and returns its output lines.
func serveLines(t *testing.T, in io.Reader) []map[string]any {
	t.Helper()
	srv := New(Options{VaultPath: filepath.Join(t.TempDir(), "none.vault"), Version: "test"})
	var out bytes.Buffer
	if err := srv.Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	var replies []map[string]any
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("reply %q is not one newline-terminated line", line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		replies = append(replies, m)
	}
	return replies
}

// The transport answers every request once, one line each: a line that is
// not JSON with a parse error, an over-long one with an invalid-request
// error, notifications and blank lines with nothing, and it goes on
// serving after each. Requests run side by side, so replies are matched
// by id.
func TestStdioAnswersEveryRequest(t *testing.T) {
	in := strings.Join([]string{
		`not json`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		``,
		`   `,
		`{"jsonrpc":"2.0","id":"two","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		strings.Repeat("x", MaxMessageBytes+1),
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
	}, "\n") // the last line has no newline: still a message
	replies := serveLines(t, strings.NewReader(in))
	if len(replies) != 6 {
		t.Fatalf("%d replies, want 6: %v", len(replies), replies)
	}
	byID := map[string]map[string]any{}
	var nullCodes []any
	for _, r := range replies {
		e, _ := r["error"].(map[string]any)
		if r["id"] == nil {
			nullCodes = append(nullCodes, e["code"])
			continue
		}
		k := fmt.Sprint(r["id"])
		if byID[k] != nil {
			t.Fatalf("two replies to id %s: %v", k, replies)
		}
		byID[k] = r
	}
	if fmt.Sprint(nullCodes) != fmt.Sprint([]any{float64(-32700), float64(errInvalidRequest)}) &&
		fmt.Sprint(nullCodes) != fmt.Sprint([]any{float64(errInvalidRequest), float64(-32700)}) {
		t.Errorf("replies without an id have codes %v, want a parse error and an invalid request", nullCodes)
	}
	if r := byID["1"]; r == nil || r["result"] == nil {
		t.Errorf("reply to ping: %v", r)
	}
	if r := byID["two"]; r == nil || r["result"] == nil {
		t.Errorf("reply to initialize: %v", r)
	}
	if r := byID["3"]; r == nil || !strings.Contains(fmt.Sprint(r["result"]), "memory_search") {
		t.Errorf("reply to tools/list: %v", r)
	}
	if r := byID["4"]; r == nil || r["error"] == nil {
		t.Errorf("reply to an unknown method: %v", r)
	}
}

// Cancelling the server's context ends Serve even while the read blocks
// (the client is silent); the test hangs, and fails, if it does not.
func TestStdioStopsOnCancelWhileReading(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	srv := New(Options{VaultPath: filepath.Join(t.TempDir(), "none.vault"), Version: "test"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, pr, io.Discard) }()
	// The pipe returns once the server has read the ping: it is serving.
	if _, err := io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
}

// Requests run side by side: a ping is answered while a tool call is still
// running (an agent's parallel calls, a status during a long import). The
// tool is released after half a minute anyway, so a transport that serves
// one request at a time fails the test (the tool's reply comes first)
// instead of hanging it.
func TestStdioServesRequestsSideBySide(t *testing.T) {
	srv := New(Options{VaultPath: filepath.Join(t.TempDir(), "none.vault"), Version: "test"})
	release := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(release) }) }
	defer time.AfterFunc(30*time.Second, stop).Stop()
	srv.MCPServer().AddTool(mcpgo.NewTool("test_block"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		<-release
		return mcpgo.NewToolResultText("released"), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_block","arguments":{}}}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	lines := bufio.NewScanner(outR)
	next := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("no reply: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if r := next(); r["id"] != float64(2) {
		t.Fatalf("first reply %v, want the ping's while the tool call runs", r)
	}
	stop()
	if r := next(); r["id"] != float64(1) || !strings.Contains(fmt.Sprint(r["result"]), "released") {
		t.Fatalf("second reply %v, want the tool call's", r)
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
