package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// endless is a reader of n bytes of 'x' (a message with no end in sight).
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// TestServeRefusesOversizedMessage: the real server, sent one message far
// over the limit, answers it with a JSON-RPC error, keeps its memory
// bounded, and answers the next message. Before the limit a 200 MB line
// made it take 5.8 GB.
func TestServeRefusesOversizedMessage(t *testing.T) {
	const huge = 64 << 20
	small := servePeak(t, 1<<10, false)
	big := servePeak(t, huge, true)
	t.Logf("peak RSS: %d MiB after a 1 KiB message, %d MiB after a %d MiB one", small>>20, big>>20, huge>>20)
	if big-small > 16<<20 {
		t.Fatalf("a %d MiB message raised the peak RSS by %d MiB: it was buffered", huge>>20, (big-small)>>20)
	}
}

// servePeak runs `compartment serve`, sends one message of n bytes and
// then a ping, checks the replies (an invalid-request error first when
// tooLong) and returns the server's peak RSS.
func servePeak(t *testing.T, n int64, tooLong bool) int64 {
	t.Helper()
	f := newFixture(t)
	cmd := exec.Command(compartment.Path(t), "serve")
	for k, v := range f.env(true) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	go func() {
		io.Copy(stdin, &endless{n: n})
		io.WriteString(stdin, "\n"+`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n")
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var replies []map[string]any
	deadline := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for len(replies) < 2 && sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("reply is not JSON: %q", sc.Text())
		}
		replies = append(replies, m)
	}
	if len(replies) < 2 {
		t.Fatalf("replies: %+v (scan: %v)", replies, sc.Err())
	}
	e, _ := replies[0]["error"].(map[string]any)
	if tooLong && (e == nil || e["code"] != float64(-32600) || replies[0]["id"] != nil || !strings.Contains(e["message"].(string), "limit")) {
		t.Fatalf("first reply %+v, want an invalid-request error", replies[0])
	}
	if replies[1]["id"] != float64(7) || replies[1]["error"] != nil {
		t.Fatalf("second reply %+v, want the ping's result", replies[1])
	}
	return peakRSS(t, cmd.Process.Pid)
}

// peakRSS reads a process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}
