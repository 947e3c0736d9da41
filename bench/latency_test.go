package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGenerateClaimsDeterministicAndOneClaim(t *testing.T) {
	a, b := GenerateClaims(1, 2000), GenerateClaims(1, 2000)
	distinct := map[string]bool{}
	for i := range a {
		if a[i].Text != b[i].Text || a[i].Query != b[i].Query {
			t.Fatalf("claim %d differs between runs: %q vs %q", i, a[i].Text, b[i].Text)
		}
		if n := utf8.RuneCountInString(a[i].Text); n > 200 || strings.ContainsAny(a[i].Text, "\n") {
			t.Fatalf("claim %d is not one short claim (%d chars): %q", i, n, a[i].Text)
		}
		if a[i].Query == "" {
			t.Fatalf("claim %d has no question", i)
		}
		distinct[a[i].Text] = true
	}
	if len(distinct) != len(a) {
		t.Errorf("only %d distinct claims of %d: the generator repeats itself", len(distinct), len(a))
	}
	if c := GenerateClaims(2, 10); c[0].Text == a[0].Text && c[1].Text == a[1].Text {
		t.Errorf("another seed gave the same claims")
	}
}

// TestBenchTableThroughTheBinary runs `compartment bench` itself (the
// table, its processes included) on a small vault.
func TestBenchTableThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "compartment")
	if out, err := exec.Command("go", "build", "-o", exe, "github.com/compartment/compartment/cmd/compartment").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	userSock := filepath.Join(dir, "user.sock")
	home := filepath.Join(dir, "home")
	run := func(args ...string) []byte {
		cmd := exec.Command(exe, append([]string{"bench", "--records", "600", "--searches", "40", "--stores", "10", "--vector-n", "2000"}, args...)...)
		cmd.Env = append(os.Environ(), "COMPARTMENT_EMBED_SOCKET="+userSock, "HOME="+home)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bench %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}
	// Twice on one kept vault: the second run's server must not take the
	// fresh copy for a rollback of the first run's, which it did while the
	// bench's processes shared the user's ~/.compartment/seen.
	cache := filepath.Join(dir, "cache")
	run("--vault-cache", cache)
	var rep LatencyReport
	if err := json.Unmarshal(run("--json", "--vault-cache", cache), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.VaultReused {
		t.Errorf("the second run built the vault again")
	}
	if _, err := os.Stat(filepath.Join(home, ".compartment", "seen")); err == nil {
		t.Errorf("the benchmark wrote rollback records into the user's ~/.compartment")
	}
	for name, v := range map[string]float64{
		"init": rep.InitMs, "open offline": rep.OpenOfflineMs, "open": rep.OpenMs, "search p50": rep.SearchP50Ms,
		"mcp search p50": rep.MCPSearchP50Ms, "server rss": rep.ServerRSSMB, "daemon rss": rep.DaemonRSSLoadedMB,
		"daemon rss after": rep.DaemonRSSBatchesMB, "store p50": rep.StoreP50Ms, "exact p50": rep.Exact.P50Ms,
		"hnsw p50": rep.HNSW.P50Ms, "first store": rep.FirstStoreMs, "search alloc": rep.SearchAllocKB,
	} {
		if !(v > 0) {
			t.Errorf("%s = %v, want a measurement", name, v)
		}
	}
	if rep.Records != 600 || rep.SearchP95Ms < rep.SearchP50Ms || rep.StoreP95Ms < rep.StoreP50Ms {
		t.Errorf("report: %+v", rep)
	}
	if rep.DaemonBatchWindows < daemonBatch {
		t.Errorf("daemon batch held %d windows, want at least %d", rep.DaemonBatchWindows, daemonBatch)
	}
	if rep.BinaryBytes <= 0 || rep.Tests < 10 {
		t.Errorf("binary %d bytes, %d tests", rep.BinaryBytes, rep.Tests)
	}
	if _, err := os.Stat(userSock); err == nil {
		t.Errorf("the benchmark used the user's daemon socket")
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hybrid search at 600", "11.6 / 14.7 ms", "embedding daemon RSS", "store one memory", "the first store after the open"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, text.String())
		}
	}
}

// TestClaimStreamMakesDistinctMemories: a million generated lines are a
// million memories. No two claims share a text (a duplicate the import
// skips) or a question (the same thing stated twice with two values, an
// update), and no holder has two opinions. The 766,811 memories of the
// million lines before came from texts drawn twice.
// commonWordsQuestion reports whether q is one of the three templates'
// questions in common words only, which many claims answer by design.
func commonWordsQuestion(q string) bool {
	return strings.HasPrefix(q, "which host and port does the ") ||
		strings.HasPrefix(q, "how often is ") || strings.HasPrefix(q, "what is the budget of ")
}

func TestClaimStreamMakesDistinctMemories(t *testing.T) {
	n := 1000000
	if testing.Short() {
		n = 100000
	}
	st := NewClaimStream(1)
	texts, questions, holders := make(map[string]bool, n), make(map[string]bool, n), map[string]string{}
	for i := range n {
		c := st.Next()
		if texts[c.Text] {
			t.Fatalf("line %d repeats the claim %q", i, c.Text)
		}
		if questions[c.Query] && !commonWordsQuestion(c.Query) {
			t.Fatalf("line %d asks a question an earlier claim answers: %q (%q)", i, c.Query, c.Text)
		}
		texts[c.Text], questions[c.Query] = true, true
		if c.Kind == "opinion" {
			who, _, _ := strings.Cut(c.Text, " recommends ")
			who, _, _ = strings.Cut(who, " prefers ")
			if prev, ok := holders[who]; ok {
				t.Fatalf("line %d: %q holds a second opinion %q beside %q", i, who, c.Text, prev)
			}
			holders[who] = c.Text
		}
	}
}
