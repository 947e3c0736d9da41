package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// TestKillNineBatchesStayWhole: `compartment import` of one batch (256
// lines) is killed with SIGKILL at random moments, half of the time the
// instant the vault file starts to grow, i.e. in the middle of writing the
// batch. Every round's lines must then be in the vault all or not at all,
// an acknowledged import (it printed its summary) entirely, and the audit
// chain must name every record. COMPARTMENT_LONG=1 runs 60 rounds
// (scripts/bench-killbatch.sh); the default is quick.
func TestKillNineBatchesStayWhole(t *testing.T) {
	c := newMemCLI(t)
	rounds := 6
	if n, err := strconv.Atoi(os.Getenv("COMPARTMENT_KILL_ROUNDS")); err == nil && n > 0 {
		rounds = n
	} else if os.Getenv("COMPARTMENT_LONG") != "" {
		rounds = 60
	}
	const lines = 256
	rng := rand.New(rand.NewPCG(13, 17))
	padding := strings.Repeat("lorem ipsum dolor sit amet ", 60)
	acked, killed, tornSeen := map[int]bool{}, 0, 0
	for round := range rounds {
		var b strings.Builder
		for i := range lines {
			fmt.Fprintf(&b, "{\"text\":\"round %d line %d %s\",\"tags\":[\"r%d\"]}\n", round, i, padding, round)
		}
		file := filepath.Join(c.dir, fmt.Sprintf("round%d.jsonl", round))
		if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(c.vault)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(c.bin, "import", file)
		cmd.Env = c.env(memCLIPass)
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		onGrowth := round%2 == 0
		deadline := time.After(time.Duration(50+rng.IntN(600)) * time.Millisecond)
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-deadline:
				if !onGrowth {
					cmd.Process.Signal(syscall.SIGKILL)
					killed++
					<-done
					break wait
				}
			default:
				if onGrowth {
					if now, err := os.Stat(c.vault); err == nil && (now.Size() != fi.Size() || !os.SameFile(now, fi)) {
						cmd.Process.Signal(syscall.SIGKILL)
						killed++
						<-done
						break wait
					}
				}
			}
		}
		if strings.Contains(out.String(), "imported") {
			acked[round] = true
		}
		var st vault.Status
		c.json(&st, "status")
		if st.TornTail != nil {
			tornSeen++
		}
	}
	var recent []vault.Record
	c.json(&recent, "recent", "--limit", "1000000")
	per := map[string]int{}
	for _, r := range recent {
		for _, tag := range r.Tags {
			per[tag]++
		}
	}
	whole := 0
	for round := range rounds {
		n := per[fmt.Sprintf("r%d", round)]
		switch {
		case n != 0 && n != lines:
			t.Errorf("round %d: %d of %d lines in the vault (a torn batch)", round, n, lines)
		case acked[round] && n != lines:
			t.Errorf("round %d: the import was acknowledged but %d of %d lines are there", round, n, lines)
		default:
			whole++
		}
	}
	var rep verifyOutput
	c.json(&rep, "verify")
	if !rep.OK || rep.Audit == nil || !rep.Audit.OK {
		t.Fatalf("verify after the kills: %+v", rep)
	}
	t.Logf("%d rounds, %d kill -9s, %d left a torn batch on disk, %d acknowledged, %d of %d rounds whole", rounds, killed, tornSeen, len(acked), whole, rounds)
}
