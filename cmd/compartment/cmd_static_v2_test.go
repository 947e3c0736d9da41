package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
)

// TestStaticV2OptIn runs the binary: a vault created with the default
// model is pinned to compartment-static-v1 and keeps working; `reindex
// --model static-v2` moves it to v2, after which it opens with v2, finds
// its record, and a second vault still on v1 is unaffected.
func TestStaticV2OptIn(t *testing.T) {
	t.Parallel()
	e := newEmbedEnv(t, "COMPARTMENT_PASSPHRASE=correct horse battery staple")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.vault"), filepath.Join(dir, "b.vault")
	var st struct{ Model struct{ Pinned string } }
	for _, v := range []string{a, b} {
		e.ok("--vault", v, "init", "--no-app")
		e.ok("--vault", v, "store", "The staging Postgres for payments runs on port 5433.", "--source", "test")
		if e.json(&st, "--vault", v, "status", "--json"); !strings.Contains(st.Model.Pinned, embed.StaticModelName) {
			t.Fatalf("new vault pinned to %q, want %s", st.Model.Pinned, embed.StaticModelName)
		}
	}
	if out := e.ok("--vault", a, "reindex", "--model", "static-v2"); !strings.Contains(out, embed.StaticV2ModelName) {
		t.Fatalf("reindex --model static-v2 said %q", out)
	}
	if e.json(&st, "--vault", a, "status", "--json"); !strings.Contains(st.Model.Pinned, embed.StaticV2ModelName) {
		t.Fatalf("after reindex the vault is pinned to %q, want %s", st.Model.Pinned, embed.StaticV2ModelName)
	}
	for _, v := range []string{a, b} {
		if out := e.ok("--vault", v, "search", "port 5433", "--top-k", "1"); !strings.Contains(out, "5433") {
			t.Fatalf("search in %s found %q", filepath.Base(v), out)
		}
	}
	if e.json(&st, "--vault", b, "status", "--json"); !strings.Contains(st.Model.Pinned, embed.StaticModelName) {
		t.Fatalf("the other vault is now pinned to %q", st.Model.Pinned)
	}
}
