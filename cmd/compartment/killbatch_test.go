package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// TestKillNineBatchesStayWhole: a batch of 256 memories, written by
// `compartment import` or by memory_store_many through `compartment
// serve` (alternating rounds), is killed with SIGKILL at random moments,
// half of the time the instant the vault file starts to grow, i.e. in the
// middle of writing the batch. Every round's memories must then be in the
// vault all or not at all, an acknowledged batch (import printed its
// summary, the tool call answered) entirely, and the audit chain must name
// every record. COMPARTMENT_LONG=1 runs 60 rounds
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
	acked, killed, tornSeen := map[int]bool{}, 0, 0
	for round := range rounds {
		facts := distinctFacts(rng, round, lines)
		fi, err := os.Stat(c.vault)
		if err != nil {
			t.Fatal(err)
		}
		var cmd *exec.Cmd
		var ack func() bool
		if round%4 < 2 {
			cmd, ack = c.importBatch(t, round, facts)
		} else {
			cmd, ack = c.storeManyBatch(t, round, facts)
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
		if ack() {
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
			t.Errorf("round %d: %d of %d memories in the vault (a torn batch)", round, n, lines)
		case acked[round] && n != lines:
			t.Errorf("round %d: the batch was acknowledged but %d of %d memories are there", round, n, lines)
		default:
			whole++
		}
	}
	var rep vault.FileCheck
	c.json(&rep, "verify")
	if !rep.OK || rep.Audit == nil || !rep.Audit.OK {
		t.Fatalf("verify after the kills: %+v", rep)
	}
	t.Logf("%d rounds, %d kill -9s, %d left a torn batch on disk, %d acknowledged, %d of %d rounds whole", rounds, killed, tornSeen, len(acked), whole, rounds)
}

// soakWords are ordinary words the embedding model knows, so facts made
// of them are far apart (unknown words would all embed alike and be
// folded as near-duplicates).
var soakWords = strings.Fields(`apple river mountain teacher window garden doctor engine silver market
castle forest winter summer bridge camera pocket violin island desert rocket coffee butter planet
jacket candle ladder mirror pencil rabbit saddle tunnel valley wallet yellow zebra anchor basket
cotton dragon feather glacier harbor iron jungle kettle lemon magnet needle orange parrot quartz
ribbon shadow tomato umbrella velvet wheat bottle cabin dolphin elbow falcon guitar hammer insect
jelly kitten lantern meadow napkin oyster pepper quilt raven spider turtle vessel walnut lizard
marble nickel onion pirate puzzle rocket salmon thunder tiger turkey vacuum wizard barrel beacon
canyon circus copper daisy eagle fabric fossil garlic goose helmet honey ivory jasmine karate
lobster mango monkey noodle ocean paddle pillow radar sailor tennis ticket tulip uncle vinegar
whistle yogurt acorn bamboo bicycle blanket cactus carpet cherry cliff cloud comet crystal`)

// distinctFacts makes n one-claim memories of random ordinary words, far
// enough apart that none is a near-duplicate of another.
func distinctFacts(rng *rand.Rand, round, n int) []string {
	out := make([]string, n)
	for i := range out {
		words := make([]string, 12)
		for j := range words {
			words[j] = soakWords[rng.IntN(len(soakWords))]
		}
		out[i] = fmt.Sprintf("In round %d the %s", round, strings.Join(words, " "))
	}
	return out
}

// importBatch starts `compartment import` of the facts (tagged r<round>);
// ack reports whether it printed its summary.
func (c *memCLI) importBatch(t *testing.T, round int, facts []string) (*exec.Cmd, func() bool) {
	// Import takes long lines (it has no one-claim check): a larger batch
	// takes longer to write, so more kills land inside it.
	var b strings.Builder
	for _, f := range facts {
		fmt.Fprintf(&b, "{\"text\":%q,\"tags\":[\"r%d\"]}\n", f+strings.Repeat(" and "+f, 8), round)
	}
	file := filepath.Join(c.dir, fmt.Sprintf("round%d.jsonl", round))
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "import", file)
	cmd.Env = c.env(memCLIPass)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, func() bool { return strings.Contains(out.String(), "imported") }
}

// storeManyBatch starts `compartment serve` and calls memory_store_many
// with the facts; ack reports whether the call was answered with every
// fact stored.
func (c *memCLI) storeManyBatch(t *testing.T, round int, facts []string) (*exec.Cmd, func() bool) {
	list := make([]map[string]any, len(facts))
	for i, f := range facts {
		list[i] = map[string]any{"text": f, "tags": []string{fmt.Sprintf("r%d", round)}}
	}
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "memory_store_many", "arguments": map[string]any{"facts": list, "source": "kill soak"}}})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + string(call) + "\n"
	cmd := exec.Command(c.bin, "serve")
	cmd.Env = c.env(memCLIPass)
	// Stdin stays open after the call, so the server does not exit before
	// it answers; it is closed once the answer is in (Wait closes it after
	// a kill).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{})
	go func() {
		io.WriteString(stdin, in)
		for !strings.Contains(out.String(), `"id":2`) {
			select {
			case <-answered:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		stdin.Close()
	}()
	return cmd, func() bool {
		close(answered)
		reply := out.String()
		return strings.Contains(reply, `"id":2`) && strings.Contains(reply, fmt.Sprintf(`"stored":%d`, len(facts)))
	}
}

// lockedBuffer is a strings.Builder safe for a writer and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
