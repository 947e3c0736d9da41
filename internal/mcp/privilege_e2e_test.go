package mcp_test

import (
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
)

// TestCallerWithoutGrantsCannotLockOrCount: a caller whose grants are
// none everywhere used to lock the vault for every agent with memory_lock
// and read record and audit counts through memory_status and
// memory_selftest. Now each refuses it, and the vault stays usable by
// others; a caller that reads one namespace keeps all three.
func TestCallerWithoutGrantsCannotLockOrCount(t *testing.T) {
	f := newFixture(t)
	cfg, err := vault.LoadConfig(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grants = map[string]map[string]vault.Access{
		"*":       {"*": vault.AccessRW},
		"nobody":  {"*": vault.AccessNone},
		"narrow":  {"*": vault.AccessNone, "shared": vault.AccessRO},
		"prefix":  {"*": vault.AccessNone, "team/*": vault.AccessRO},
		"nothing": {"work/*": vault.AccessNone, "*": vault.AccessNone},
	}
	if err := cfg.Save(f.vault); err != nil {
		t.Fatal(err)
	}
	for _, caller := range []string{"nobody", "nothing"} {
		b := startBridge(t)
		b.connect(f.env(true), "--caller", caller)
		for _, tool := range []string{"memory_lock", "memory_status", "memory_selftest"} {
			if msg := b.fails(tool, nil); !strings.Contains(msg, vault.ErrDenied.Error()) || !strings.Contains(msg, "read access") {
				t.Errorf("%s as %s: %s", tool, caller, msg)
			}
		}
		b.close()
	}
	// The vault was not locked by them: another caller still works.
	b := startBridge(t)
	b.connect(f.env(false))
	var st statusResult
	b.ok("memory_status", nil, &st)
	b.close()
	for _, caller := range []string{"narrow", "prefix"} {
		// Each in its own session directory: one's lock shuts
		// COMPARTMENT_PASSPHRASE out for the next otherwise.
		b := startBridge(t)
		b.connect(f.env(true, "COMPARTMENT_SESSION_DIR="+t.TempDir()), "--caller", caller)
		b.ok("memory_status", nil, &st)
		b.ok("memory_selftest", nil, nil)
		b.ok("memory_lock", nil, nil)
		b.close()
	}
}
