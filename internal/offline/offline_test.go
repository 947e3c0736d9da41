package offline

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/compartment/compartment/internal/hermetic"
)

// The guard cannot be removed once installed, so each case runs in a child
// process: the test binary re-executed with OFFLINE_CHILD set.
func TestMain(m *testing.M) {
	if mode := os.Getenv("OFFLINE_CHILD"); mode != "" {
		if run, ok := childModes[mode]; ok {
			os.Exit(run())
		}
		os.Exit(child(mode))
	}
	hermetic.Clear()
	os.Exit(m.Run())
}

// childModes are further child behaviours, registered by platform tests.
var childModes = map[string]func() int{}

func child(mode string) int {
	if mode == "guarded" {
		if err := Enforce(); err != nil {
			os.Stderr.WriteString("enforce: " + err.Error())
			return 3
		}
	}
	tcpErr := dial("tcp", os.Getenv("OFFLINE_TCP"))
	udpErr := dial("udp", "127.0.0.1:9")
	unixErr := dial("unix", os.Getenv("OFFLINE_UNIX"))
	report := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, syscall.EACCES):
			return "denied"
		}
		return "error:" + err.Error()
	}
	os.Stdout.WriteString(report(tcpErr) + " " + report(udpErr) + " " + report(unixErr))
	return 0
}

func dial(network, addr string) error {
	c, err := net.Dial(network, addr)
	if err == nil {
		c.Close()
	}
	return err
}

func runChild(t *testing.T, mode string) string {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	sock := filepath.Join(t.TempDir(), "s")
	ux, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ux.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := ux.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OFFLINE_CHILD="+mode, "OFFLINE_TCP="+tcp.Addr().String(), "OFFLINE_UNIX="+sock)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child %s: %v %s", mode, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGuardRefusesNetworkSocketsButNotUnixSockets(t *testing.T) {
	if got := runChild(t, "open"); !strings.HasPrefix(got, "ok ok ok") {
		t.Fatalf("without the guard: %q, want every dial to work", got)
	}
	if got := runChild(t, "guarded"); got != "denied denied ok" {
		t.Fatalf("with the guard: %q, want tcp and udp denied, unix ok", got)
	}
}
