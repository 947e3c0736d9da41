package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// onOtherMachine runs the binary against the vault file at path as
// another machine would: its own home (so its own record of what it has
// seen), session and boot dirs.
func (c *memCLI) onOtherMachine(path string, args ...string) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	env := c.env(memCLIPass)
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "COMPARTMENT_SESSION_DIR", "COMPARTMENT_BOOT_SECRET_DIR":
			env[i] = k + "=" + filepath.Join(c.dir, "other-machine", k)
		case "COMPARTMENT_VAULT":
			env[i] = k + "=" + path
		}
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("%v on the other machine: %v\n%s", args, err, out)
	}
}

func (c *memCLI) putBack(src string) {
	c.t.Helper()
	tmp := c.vault + ".restore"
	copyFile(c.t, src, tmp, 0o600)
	if err := os.Rename(tmp, c.vault); err != nil {
		c.t.Fatal(err)
	}
}

// TestDivergentCopyCompactedElsewhereRefusedByTheCLI is #27 item 4 with a
// compaction on the other machine, run with the real binary: store A,
// copy, store B; on the other machine store four memories into the copy
// and compact it (`lock` flushes and compacts); copy it back. Every
// command refuses it in one sentence naming --accept-rollback, which
// then takes it; a copy that only moved forward and was compacted there
// opens without a word.
func TestDivergentCopyCompactedElsewhereRefusedByTheCLI(t *testing.T) {
	c := newMemCLI(t)
	c.store("fact A")
	laptop := filepath.Join(c.dir, "laptop.vault")
	copyFile(t, c.vault, laptop, 0o600)
	c.store("fact B")
	for _, text := range []string{"one from the laptop", "two from the laptop", "three from the laptop", "four from the laptop"} {
		c.onOtherMachine(laptop, "store", text, "--source", "the other machine")
	}
	c.onOtherMachine(laptop, "lock")
	c.putBack(laptop)
	for _, args := range [][]string{{"recent"}, {"search", "fact"}, {"store", "fact C", "--source", "s"}} {
		msg := c.fails(args...)
		if !strings.Contains(msg, "compacted elsewhere") || !strings.Contains(msg, "written to separately") ||
			!strings.Contains(msg, "--accept-rollback") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%s on the divergent compacted copy: %q", args[0], msg)
		}
	}
	out := c.ok("--accept-rollback", "recent")
	if strings.Contains(out, "fact B") || !strings.Contains(out, "four from the laptop") {
		t.Fatalf("the accepted copy: %q", out)
	}
	c.ok("recent")

	// The honest round trip, compacted on the other machine.
	c2 := newMemCLI(t)
	c2.store("fact A")
	c2.store("fact B")
	trip := filepath.Join(c2.dir, "laptop.vault")
	copyFile(t, c2.vault, trip, 0o600)
	c2.onOtherMachine(trip, "store", "one from the laptop", "--source", "the other machine")
	c2.onOtherMachine(trip, "lock")
	c2.putBack(trip)
	if out := c2.ok("recent"); !strings.Contains(out, "fact B") || !strings.Contains(out, "one from the laptop") {
		t.Fatalf("the honest round trip, compacted elsewhere: %q", out)
	}
}
