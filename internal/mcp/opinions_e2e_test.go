package mcp_test

import (
	"slices"
	"testing"

	"github.com/compartment/compartment/internal/vault"
)

// An agent that may only read main changes the user's opinion through
// MCP: the conflict names main's record, the resend links it, and the
// agent's search ranks its own opinion first and marks main's as updated.
func TestOpinionAcrossNamespacesOverMCP(t *testing.T) {
	f := newFixture(t)
	cfg, err := vault.LoadConfig(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grants = map[string]map[string]vault.Access{"*": {"*": vault.AccessRW}, "claude": {"*": vault.AccessRO, "claude": vault.AccessRW}}
	if err := cfg.Save(f.vault); err != nil {
		t.Fatal(err)
	}
	opinion := func(b *bridge, text string, supersedes []string) storeResult {
		t.Helper()
		args := map[string]any{"text": text, "source": "from chat", "kind": "opinion"}
		if supersedes != nil {
			args["supersedes"] = supersedes
		}
		var r storeResult
		b.ok("memory_store", args, &r)
		return r
	}

	user := startBridge(t)
	user.connect(f.env(true), "--caller", "user")
	var st statusResult
	user.ok("memory_status", nil, &st)
	if st.Vault.Model.Loaded == "" {
		user.close()
		t.Skip("no embedding model in this binary: opinions meet through the semantic channel")
	}
	zed := opinion(user, "Lena prefers Zed as her editor.", nil)
	tea := opinion(user, "Lena likes tea.", nil)
	bareZed := opinion(user, "Priya prefers Zed.", nil)
	user.close()
	if !zed.Stored || !tea.Stored || !bareZed.Stored {
		t.Fatalf("main's opinions: %+v %+v", zed, tea)
	}

	claude := startBridge(t)
	claude.connect(f.env(true), "--caller", "claude")
	defer claude.close()
	const helix = "Lena now prefers Helix as her editor."
	conflict := opinion(claude, helix, nil)
	if conflict.Stored || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].ID != zed.ID || conflict.Conflicts[0].Namespace != "main" {
		t.Fatalf("claude's Helix: %+v, want a conflict naming main's Zed", conflict)
	}
	var linked struct {
		Stored bool     `json:"stored"`
		ID     string   `json:"id"`
		Linked []string `json:"linked"`
	}
	claude.ok("memory_store", map[string]any{"text": helix, "source": "from chat", "kind": "opinion", "supersedes": []string{zed.ID}}, &linked)
	if !linked.Stored || !slices.Equal(linked.Linked, []string{zed.ID}) {
		t.Fatalf("resend with supersedes: %+v, want stored and main's Zed linked", linked)
	}
	type searchOut struct {
		Results []struct {
			ID        string   `json:"id"`
			UpdatedBy string   `json:"updated_by"`
			Replaces  []string `json:"replaces"`
		} `json:"results"`
	}
	// The default answer holds the current opinion alone, saying it
	// replaces main's Zed; history brings Zed back below it, marked.
	for _, history := range []bool{false, true} {
		var s searchOut
		claude.ok("memory_search", map[string]any{"query": "Which editor does Lena prefer?", "top_k": 5, "history": history}, &s)
		helixAt, zedAt := -1, -1
		for i, h := range s.Results {
			switch h.ID {
			case linked.ID:
				helixAt = i
				if h.UpdatedBy != "" || !slices.Equal(h.Replaces, []string{zed.ID}) {
					t.Errorf("the current opinion: updated_by %q, replaces %v, want nothing and [%s]", h.UpdatedBy, h.Replaces, zed.ID)
				}
			case zed.ID:
				zedAt = i
				if h.UpdatedBy != linked.ID {
					t.Errorf("main's Zed: updated_by %q, want %s", h.UpdatedBy, linked.ID)
				}
			}
		}
		if helixAt < 0 || history && zedAt < helixAt || !history && zedAt >= 0 {
			t.Fatalf("search (history %v) %+v: want Helix (%s), and Zed (%s) below it only with history", history, s.Results, linked.ID, zed.ID)
		}
	}

	// Bare choices name no aspect: stored apart, unlinked, and search
	// marks the older maybe_updated_by the newer.
	bareHelix := opinion(claude, "Priya prefers Helix.", nil)
	if !bareHelix.Stored || len(bareHelix.Conflicts) > 0 {
		t.Fatalf("claude's bare Helix: %+v, want stored on its own", bareHelix)
	}
	var m struct {
		Results []struct {
			ID             string `json:"id"`
			UpdatedBy      string `json:"updated_by"`
			MaybeUpdatedBy string `json:"maybe_updated_by"`
		} `json:"results"`
	}
	claude.ok("memory_search", map[string]any{"query": "Which editor does Priya prefer?", "top_k": 5}, &m)
	helixAt, zedAt := -1, -1
	for i, h := range m.Results {
		switch h.ID {
		case bareHelix.ID:
			helixAt = i
		case bareZed.ID:
			zedAt = i
			if h.MaybeUpdatedBy != bareHelix.ID || h.UpdatedBy != "" {
				t.Errorf("main's bare Zed: maybe_updated_by %q updated_by %q, want maybe updated by %s only", h.MaybeUpdatedBy, h.UpdatedBy, bareHelix.ID)
			}
		}
	}
	if helixAt < 0 || zedAt < 0 || zedAt < helixAt {
		t.Fatalf("search %+v: want bare Helix (%s) above bare Zed (%s)", m.Results, bareHelix.ID, bareZed.ID)
	}
}
