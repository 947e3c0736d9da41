package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongerDivergentCopyRefusedByTheCLI is #27 item 4 rerun the way the
// audit ran it, with the real binary: store A, copy the vault, store B;
// on another machine (its own home) store four memories into the copy;
// copy it back over the vault. Every command refuses it, naming
// --accept-rollback; the honest round trip (copy, write elsewhere, copy
// back, nothing written here meanwhile) still opens.
func TestLongerDivergentCopyRefusedByTheCLI(t *testing.T) {
	c := newMemCLI(t)
	c.store("fact A")
	laptop := filepath.Join(c.dir, "laptop.vault")
	copyFile(t, c.vault, laptop, 0o600)
	c.store("fact B")

	elsewhere := func(path string, texts ...string) {
		t.Helper()
		for _, text := range texts {
			cmd := exec.Command(c.bin, "store", text, "--source", "the other machine")
			env := c.env(memCLIPass)
			for i, kv := range env {
				switch {
				case strings.HasPrefix(kv, "HOME="):
					env[i] = "HOME=" + filepath.Join(c.dir, "other-home")
				case strings.HasPrefix(kv, "COMPARTMENT_VAULT="):
					env[i] = "COMPARTMENT_VAULT=" + path
				}
			}
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("store on the other machine: %v\n%s", err, out)
			}
		}
	}
	elsewhere(laptop, "one from the laptop", "two from the laptop", "three from the laptop", "four from the laptop")
	putBack := func(src string) {
		t.Helper()
		tmp := c.vault + ".restore"
		copyFile(t, src, tmp, 0o600)
		if err := os.Rename(tmp, c.vault); err != nil {
			t.Fatal(err)
		}
	}
	putBack(laptop)
	for _, args := range [][]string{{"recent"}, {"search", "fact"}, {"store", "fact C", "--source", "s"}} {
		msg := c.fails(args...)
		if !strings.Contains(msg, "written to separately") || !strings.Contains(msg, "--accept-rollback") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%s on the divergent copy: %q", args[0], msg)
		}
	}

	// The honest round trip.
	c2 := newMemCLI(t)
	c2.store("fact A")
	c2.store("fact B")
	trip := filepath.Join(c2.dir, "laptop.vault")
	copyFile(t, c2.vault, trip, 0o600)
	c = c2
	elsewhere(trip, "one from the laptop", "two from the laptop")
	putBack(trip)
	if out := c2.ok("recent"); !strings.Contains(out, "fact B") || !strings.Contains(out, "two from the laptop") {
		t.Fatalf("the honest round trip: %q", out)
	}
}
