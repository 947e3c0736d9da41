package mcp_test

import (
	"strings"
	"testing"
)

// TestNamespaceCaseThroughMCP: through the real server and the SDK client,
// memory_store into "Work/x" beside "work/x" (and memory_store_many
// creating two spellings at once) is refused with the spelling to use; the
// existing spelling still takes memories.
func TestNamespaceCaseThroughMCP(t *testing.T) {
	f := newFixture(t)
	b := startBridge(t)
	b.connect(f.env(true))
	b.ok("memory_store", map[string]any{"text": "The northwind contract renews in March", "source": "chat", "namespace": "work/x"}, nil)
	msg := b.fails("memory_store", map[string]any{"text": "The acme invoice is due on Friday", "source": "chat", "namespace": "Work/x"})
	if !strings.Contains(msg, `"work/x"`) || !strings.Contains(msg, "only in case") {
		t.Errorf("memory_store into Work/x: %s", msg)
	}
	msg = b.fails("memory_store_many", map[string]any{"source": "chat", "namespace": "WORK/X",
		"facts": []map[string]any{{"text": "The first fact is about apples"}, {"text": "The second fact is about pears"}}})
	if !strings.Contains(msg, `"work/x"`) {
		t.Errorf("memory_store_many into WORK/X: %s", msg)
	}
	b.ok("memory_store", map[string]any{"text": "The acme invoice is due on Friday", "source": "chat", "namespace": "work/x"}, nil)
	var ns struct {
		Namespaces []struct {
			Name    string `json:"name"`
			Records int    `json:"records"`
		} `json:"namespaces"`
	}
	b.ok("memory_list_namespaces", nil, &ns)
	for _, n := range ns.Namespaces {
		if strings.EqualFold(n.Name, "work/x") && (n.Name != "work/x" || n.Records != 2) {
			t.Errorf("namespace %q with %d records", n.Name, n.Records)
		}
	}
	b.close()
}
