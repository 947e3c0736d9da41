//go:build linux

package session

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestForbidCoreDumps: in a child that starts with core dumps allowed (as
// `ulimit -c unlimited` would), ForbidCoreDumps leaves the process
// non-dumpable with a core limit of 0 that cannot be raised again. Before,
// a core of a process holding the key held plaintext memories.
func TestForbidCoreDumps(t *testing.T) {
	if os.Getenv("NODUMP_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestForbidCoreDumpsChild$")
	cmd.Env = append(os.Environ(), "NODUMP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "before dumpable=1 core=") || !strings.Contains(string(out), "after dumpable=0 core=0/0 raise=") {
		t.Fatalf("child said:\n%s", out)
	}
	if strings.Contains(string(out), "raise=ok") {
		t.Fatalf("the core limit could be raised again:\n%s", out)
	}
}

func TestForbidCoreDumpsChild(t *testing.T) {
	if os.Getenv("NODUMP_CHILD") != "1" {
		t.Skip("runs as TestForbidCoreDumps's child")
	}
	report := func(when string) string {
		d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		var lim unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_CORE, &lim)
		return when + " dumpable=" + strconv.Itoa(d) + " core=" + strconv.FormatUint(lim.Cur, 10) + "/" + strconv.FormatUint(lim.Max, 10)
	}
	// Start from what `ulimit -c unlimited` gives, where permitted.
	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_CORE, &lim)
	unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: lim.Max, Max: lim.Max})
	os.Stdout.WriteString(report("before") + "\n")
	if err := ForbidCoreDumps(); err != nil {
		t.Fatal(err)
	}
	raise := "not-tried-as-root" // root (CAP_SYS_RESOURCE) may raise any limit
	if os.Geteuid() != 0 {
		raise = "refused"
		if unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 1 << 20, Max: 1 << 20}) == nil {
			raise = "ok"
		}
	}
	os.Stdout.WriteString(report("after") + " raise=" + raise + "\n")
}
