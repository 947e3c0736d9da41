package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamespaceCaseRefusedByTheCLI: `store --namespace Work/x` beside
// work/x, and an import line spelling it WORK/X, are refused with one
// sentence naming the existing spelling; the existing spelling still
// takes memories and `namespaces` lists one namespace.
func TestNamespaceCaseRefusedByTheCLI(t *testing.T) {
	c := newMemCLI(t)
	c.store("The northwind contract renews in March", "--namespace", "work/x")
	msg := c.fails("store", "The acme invoice is due on Friday", "--source", "s", "--namespace", "Work/x")
	if !strings.Contains(msg, `"work/x"`) || !strings.Contains(msg, "only in case") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
		t.Errorf("store into Work/x: %q", msg)
	}
	lines := filepath.Join(c.dir, "in.jsonl")
	if err := os.WriteFile(lines, []byte(`{"text":"Imported fact two is about the garage","source":"s","namespace":"WORK/X"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := c.fails("import", lines); !strings.Contains(msg, `"work/x"`) {
		t.Errorf("import into WORK/X: %q", msg)
	}
	c.store("The acme invoice is due on Friday", "--namespace", "work/x")
	out := c.ok("namespaces")
	if !strings.Contains(out, "work/x") || strings.Contains(out, "Work/x") || strings.Contains(out, "WORK/X") {
		t.Errorf("namespaces: %q", out)
	}
}
