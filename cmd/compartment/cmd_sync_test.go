package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCommands: two vaults, one folder: init on the first, join on
// the second (keeping what it held), every command merges what arrived,
// status lists both devices, now merges, leave stops syncing; a wrong
// passphrase is refused with a sentence.
func TestSyncCommands(t *testing.T) {
	t.Parallel()
	a, b := newMemCLI(t), newMemCLI(t)
	folder := filepath.Join(t.TempDir(), "sync")
	a.store("The office wifi is called heron")
	b.store("The backup job runs at two in the morning")

	var initOut struct {
		Folder string `json:"folder"`
		Device string `json:"device_id"`
		Merge  struct {
			Logged int `json:"logged"`
		} `json:"merge"`
	}
	a.json(&initOut, "sync", "init", folder, "--name", "laptop")
	if initOut.Folder != folder || len(initOut.Device) != 32 || initOut.Merge.Logged != 1 {
		t.Fatalf("sync init: %+v", initOut)
	}
	if msg := b.failsStdin("a wrong passphrase\n", "sync", "join", folder, "--passphrase-stdin"); !strings.Contains(msg, "does not open the sync folder") {
		t.Fatalf("join with a wrong passphrase said: %s", msg)
	}
	b.ok("sync", "join", folder, "--name", "desktop")
	// b now holds a's memory, and a gets b's on its next command.
	if out := b.ok("recent"); !strings.Contains(out, "heron") || !strings.Contains(out, "backup job") {
		t.Fatalf("b after join:\n%s", out)
	}
	if out := a.ok("recent"); !strings.Contains(out, "backup job") {
		t.Fatalf("a after b joined:\n%s", out)
	}
	b.store("The release train leaves on thursdays")
	var now struct {
		Merge struct {
			Written int `json:"written"`
		} `json:"merge"`
	}
	a.json(&now, "sync", "now")
	if now.Merge.Written != 1 {
		t.Fatalf("sync now: %+v", now)
	}
	var st struct {
		Status struct {
			Devices []struct {
				Name       string `json:"name"`
				This       bool   `json:"this_device"`
				Operations int    `json:"operations"`
			} `json:"devices"`
		} `json:"status"`
	}
	a.json(&st, "sync", "status")
	if len(st.Status.Devices) != 2 || !st.Status.Devices[0].This || st.Status.Devices[0].Name != "laptop" || st.Status.Devices[1].Operations != 2 {
		t.Fatalf("sync status: %+v", st.Status.Devices)
	}
	if out := a.ok("sync", "status"); !strings.Contains(out, "desktop") || !strings.Contains(out, "this device") {
		t.Fatalf("sync status text:\n%s", out)
	}
	b.ok("sync", "leave")
	if msg := b.fails("sync", "status"); !strings.Contains(msg, "not synced") {
		t.Fatalf("status after leave: %s", msg)
	}
	if out := b.ok("recent"); !strings.Contains(out, "heron") {
		t.Fatalf("b lost memories when it left:\n%s", out)
	}
}

// failsStdin runs a command with stdin that must fail, and returns its
// stderr.
func (c *memCLI) failsStdin(stdin string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = c.env(memCLIPass)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		c.t.Fatalf("compartment %s should have failed", strings.Join(args, " "))
	}
	return stderr.String()
}
