//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// #28: the Connect list covers every client installed here that integrate
// can wire (Codex, Gemini CLI, OpenCode were missing), after the three it
// always offers; a client that is not installed, or whose servers live
// where integrate cannot write, is not listed.
func TestConnectListCoversInstalledClients(t *testing.T) {
	cli := newVault(t)
	home := os.Getenv("HOME")
	bin := filepath.Join(home, "bin")
	os.MkdirAll(bin, 0o700)
	for _, b := range []string{"codex", "gemini", "opencode"} {
		os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	st, err := cli.Load()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range st.Connectable {
		ids = append(ids, a.ID)
	}
	if len(ids) < 6 || !slices.Equal(ids[:3], []string{"claude-code", "hermes", "openclaw"}) {
		t.Fatalf("Connect list %v: want the three defaults first", ids)
	}
	for _, want := range []string{"codex", "gemini", "opencode"} {
		if !slices.Contains(ids, want) {
			t.Errorf("installed client %s missing from the Connect list %v", want, ids)
		}
	}
	for _, not := range []string{"zed", "cherry-studio"} {
		if slices.Contains(ids, not) {
			t.Errorf("%s is listed though it is not installed (or has no file to write)", not)
		}
	}
	v := view(st, nil, false)
	if len(v.Agents) != len(ids) || !strings.HasPrefix(v.Agents[3], st.Connectable[3].Name+": ") {
		t.Fatalf("view agents %q for %v", v.Agents, ids)
	}
	// Connect on a listed client runs integrate for it.
	i := slices.Index(v.AgentIDs, "codex")
	if err := cli.Connect(v.AgentIDs[i]); err != nil {
		t.Fatal(err)
	}
	st, _ = cli.Load()
	if !st.Agents["codex"] {
		t.Fatal("Connect did not wire Codex")
	}
}
