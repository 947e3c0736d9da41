package session_test

// The soak: several MCP server processes and CLI writers store into one
// namespace of one vault at the same time, all through one unlock session.
// Afterwards every acknowledged write is present exactly once, nothing
// appears that nobody tried to write, each server's search sees the other
// writers' writes (checked during the run and at the end), and
// `compartment verify` passes. The kill variant SIGKILLs one server and
// one CLI store mid-run.
//
// Short by default (part of `make test`); COMPARTMENT_LONG=1 runs it for
// COMPARTMENT_SOAK_SECONDS (default 120) and scripts/bench-soak.sh prints
// the numbers.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

const soakNamespace = "soak"

type soakConfig struct {
	servers, cliWriters int
	perServer, perCLI   int           // stores per writer (short run)
	duration            time.Duration // long run: store until it has passed
	killServer, killCLI bool
}

// ack is one acknowledged write.
type ack struct {
	writer, id, text, phrase string
}

// soak holds what the writers share.
type soak struct {
	t   *testing.T
	e   *env
	cfg soakConfig
	end time.Time

	mu        sync.Mutex
	attempted map[string]string // text -> writer, recorded before the write is sent
	acks      []ack
	latest    map[string]ack // per writer, its newest acknowledged write
	checks    atomic.Int64   // cross-process visibility checks passed
	killed    atomic.Int64
}

func soakShort() soakConfig {
	return soakConfig{servers: 3, cliWriters: 2, perServer: 12, perCLI: 8}
}

func soakLong(t *testing.T) soakConfig {
	secs := 120
	if v, err := strconv.Atoi(os.Getenv("COMPARTMENT_SOAK_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	return soakConfig{servers: 3, cliWriters: 2, duration: time.Duration(secs) * time.Second}
}

func soakConfigFor(t *testing.T) soakConfig {
	if os.Getenv("COMPARTMENT_LONG") == "1" {
		return soakLong(t)
	}
	return soakShort()
}

func TestSoak(t *testing.T) {
	t.Parallel()
	runSoak(t, soakConfigFor(t))
}

func TestSoakKill(t *testing.T) {
	t.Parallel()
	cfg := soakConfigFor(t)
	cfg.killServer, cfg.killCLI = true, true
	runSoak(t, cfg)
}

func runSoak(t *testing.T, cfg soakConfig) {
	e := newEnv(t)
	e.initVault()
	e.unlock()
	s := &soak{t: t, e: e, cfg: cfg, attempted: map[string]string{}, latest: map[string]ack{}}
	servers := make([]*mcpClient, cfg.servers)
	for i := range servers {
		servers[i] = e.startMCP()
	}
	start := time.Now()
	if cfg.duration > 0 {
		s.end = start.Add(cfg.duration)
	}
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serverWriter(fmt.Sprintf("server%d", i), srv, cfg.killServer && i == 0)
		}()
	}
	for j := range cfg.cliWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.cliWriter(fmt.Sprintf("cli%d", j), cfg.killCLI && j == 0)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if t.Failed() {
		return
	}
	live := servers
	if cfg.killServer {
		live = servers[1:]
	}
	s.crossCheck(live)
	for _, srv := range live {
		srv.close()
	}
	present := s.checkPresent()
	s.verify()
	perWriter := map[string]int{}
	for _, a := range s.acks {
		perWriter[a.writer]++
	}
	compactions := "?"
	if h, err := vaultfmt.ReadHeader(e.vault); err == nil {
		compactions = strconv.FormatUint(h.Epoch, 10)
	}
	t.Logf("soak: %d server processes + %d CLI writers, %v: %d writes acknowledged (%.1f writes/s), %d unacknowledged attempts, %d present in the namespace, %d cross-process visibility checks, %d processes SIGKILLed, file epoch %s (whole-file rewrites); per writer %v",
		cfg.servers, cfg.cliWriters, elapsed.Round(time.Millisecond), len(s.acks), float64(len(s.acks))/elapsed.Seconds(),
		len(s.attempted)-len(s.acks), present, s.checks.Load(), s.killed.Load(), compactions, perWriter)
}

// more reports whether writer should store its n-th memory.
func (s *soak) more(n, per int) bool {
	if s.t.Failed() {
		return false
	}
	if s.cfg.duration > 0 {
		return time.Now().Before(s.end)
	}
	return n < per
}

// next draws a new text and records it as attempted.
func (s *soak) next(writer string, n int) (text, phrase string) {
	phrase = randPhrase(6)
	text = fmt.Sprintf("Soak memory %s %d: %s", writer, n, phrase)
	s.mu.Lock()
	s.attempted[text] = writer
	s.mu.Unlock()
	return text, phrase
}

func (s *soak) acked(a ack) {
	s.mu.Lock()
	s.acks = append(s.acks, a)
	s.latest[a.writer] = a
	s.mu.Unlock()
}

// other returns the newest acknowledged write of some writer other than
// writer, if any.
func (s *soak) other(writer string, n int) (ack, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cands []ack
	for w, a := range s.latest {
		if w != writer {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return ack{}, false
	}
	return cands[n%len(cands)], true
}

// serverWriter stores through one MCP server; every third store it checks
// that the server sees another writer's newest acknowledged write. The
// victim is SIGKILLed part-way through a store.
func (s *soak) serverWriter(writer string, srv *mcpClient, victim bool) {
	killAt := -1
	if victim {
		killAt = 3 + randInt(4)
	}
	for n := 0; s.more(n, s.cfg.perServer); n++ {
		text, phrase := s.next(writer, n)
		if n == killAt {
			go func() {
				time.Sleep(time.Duration(randInt(30)) * time.Millisecond)
				srv.kill()
			}()
			s.killed.Add(1)
			if id, err := srv.store(text, soakNamespace); err == nil {
				s.acked(ack{writer, id, text, phrase})
			}
			return
		}
		id, err := srv.store(text, soakNamespace)
		if err != nil {
			s.t.Errorf("%s store %d: %v\nserver log: %s", writer, n, err, srv.stderr)
			return
		}
		s.acked(ack{writer, id, text, phrase})
		if n%3 == 2 {
			s.mustSee(writer, srv, n)
		}
	}
}

// mustSee checks that srv's search finds another writer's newest write:
// it was acknowledged before the search was sent, so a server that
// catches up before each call must see it.
func (s *soak) mustSee(writer string, srv *mcpClient, n int) {
	a, ok := s.other(writer, n)
	if !ok {
		return
	}
	ids, err := srv.search(a.phrase, soakNamespace)
	if err != nil {
		s.t.Errorf("%s search: %v", writer, err)
		return
	}
	if !contains(ids, a.id) {
		s.t.Errorf("%s does not see %s's acknowledged write %s (%q): got %v", writer, a.writer, a.id, a.text, ids)
		return
	}
	s.checks.Add(1)
}

// cliWriter stores with one fresh CLI process per memory. The victim
// SIGKILLs one of its stores mid-flight.
func (s *soak) cliWriter(writer string, victim bool) {
	killAt := -1
	if victim {
		killAt = 2 + randInt(3)
	}
	for n := 0; s.more(n, s.cfg.perCLI); n++ {
		text, phrase := s.next(writer, n)
		cmd := exec.Command(binary(s.t), "store", text, "--source", "soak test", "--namespace", soakNamespace, "--json")
		cmd.Env = s.e.vars
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			s.t.Errorf("%s: %v", writer, err)
			return
		}
		if n == killAt {
			time.Sleep(time.Duration(randInt(120)) * time.Millisecond)
			cmd.Process.Kill()
			s.killed.Add(1)
		}
		err := cmd.Wait()
		if n == killAt {
			if err == nil {
				s.ackCLI(writer, text, phrase, out.String())
			}
			continue
		}
		if err != nil {
			s.t.Errorf("%s store %d: %v: %s", writer, n, err, errb.String())
			return
		}
		s.ackCLI(writer, text, phrase, out.String())
	}
}

func (s *soak) ackCLI(writer, text, phrase, out string) {
	var res struct {
		ID     string `json:"id"`
		Stored bool   `json:"stored"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Stored {
		s.t.Errorf("%s: unexpected store answer %q (%v)", writer, out, err)
		return
	}
	s.acked(ack{writer, res.ID, text, phrase})
}

// crossCheck: at the end, every live server finds every writer's newest
// write.
func (s *soak) crossCheck(servers []*mcpClient) {
	for i, srv := range servers {
		for w, a := range s.latest {
			ids, err := srv.search(a.phrase, soakNamespace)
			if err != nil {
				s.t.Errorf("final search on live server %d: %v", i, err)
				continue
			}
			if !contains(ids, a.id) {
				s.t.Errorf("live server %d does not see %s's last write %s", i, w, a.id)
				continue
			}
			s.checks.Add(1)
		}
	}
}

// checkPresent exports the vault and checks the namespace against what
// was acknowledged and attempted; it returns how many memories are there.
func (s *soak) checkPresent() int {
	out := s.e.ok("", nil, "export", "--plaintext", "-")
	byText := map[string][]string{}
	seqs := map[uint64]string{}
	present := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Text      string `json:"text"`
			Namespace string `json:"namespace"`
			Seq       uint64 `json:"seq"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			s.t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		if line.Type != "memory" || line.Namespace != soakNamespace {
			continue
		}
		present++
		byText[line.Text] = append(byText[line.Text], line.ID)
		if _, ok := s.attempted[line.Text]; !ok {
			s.t.Errorf("memory %s (%q) was never written by any writer", line.ID, line.Text)
		}
		if other, dup := seqs[line.Seq]; dup {
			s.t.Errorf("memories %s and %s share seq %d", other, line.ID, line.Seq)
		}
		seqs[line.Seq] = line.ID
	}
	for _, a := range s.acks {
		ids := byText[a.text]
		switch {
		case len(ids) == 0:
			s.t.Errorf("acknowledged write %s by %s is missing: %q", a.id, a.writer, a.text)
		case len(ids) > 1:
			s.t.Errorf("acknowledged write by %s is present %d times: %v", a.writer, len(ids), ids)
		case ids[0] != a.id:
			s.t.Errorf("acknowledged write by %s has id %s, was acknowledged as %s", a.writer, ids[0], a.id)
		}
	}
	for text, ids := range byText {
		if len(ids) > 1 {
			s.t.Errorf("%q is present %d times", text, len(ids))
		}
	}
	return present
}

// verify runs `compartment verify` (structure, every seal, audit chain).
func (s *soak) verify() {
	r := s.e.run("", nil, "verify")
	if r.code != 0 {
		s.t.Errorf("verify failed (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "every sealed item opened") {
		s.t.Errorf("verify did not check the seals (no credential?):\n%s", r.stdout)
	}
}
