package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// Argument errors are sentences, never the validator's Go values.
func TestArgumentErrorsAreSentences(t *testing.T) {
	s := &Server{}
	a, err := compileArgSchemas(s.tools())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"memory_store", `{"text":"a fact"}`, `the argument "source" is required`},
		{"memory_store", `{"text":5,"source":"x"}`, `"text" must be a string, not a number`},
		{"memory_search", `{"query":"x","top_k":"ten"}`, `"top_k" must be an integer, not a string`},
		{"memory_search", `{"query":"x","top_k":-3}`, `"top_k" must be at least 1, not -3`},
	} {
		err := a.check(tc.tool, json.RawMessage(tc.args))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "&{}") {
			t.Errorf("%s %s: %v, want %q", tc.tool, tc.args, err, tc.want)
		}
	}
	if err := a.check("memory_search", json.RawMessage(`{"query":"x"}`)); err != nil {
		t.Errorf("valid arguments refused: %v", err)
	}
}
