package mcp

import (
	"encoding/json"
	"testing"

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
