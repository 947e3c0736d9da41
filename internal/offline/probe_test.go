package offline

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestProbeInAChild runs RunProbe in a child copy of this test binary (the
// guard cannot be undone), and checks that Probe reads a failure as one.
func TestProbeInAChild(t *testing.T) {
	if os.Getenv("OFFLINE_PROBE_CHILD") == "1" {
		if err := RunProbe(); err != nil {
			os.Stdout.WriteString(err.Error())
			os.Exit(1)
		}
		os.Stdout.WriteString(ProbeHolds + "\n" + Layers())
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProbeInAChild$")
	cmd.Env = append(os.Environ(), "OFFLINE_PROBE_CHILD=1")
	out, err := cmd.CombinedOutput()
	first, layers, _ := strings.Cut(string(out), "\n")
	if err != nil || first != ProbeHolds || !strings.HasPrefix(layers, "seccomp filter; ") {
		t.Fatalf("probe child: %v %q", err, out)
	}
	// A "probe" that is not one (true prints nothing) is not taken for a pass.
	if _, err := Probe("/bin/true"); err == nil {
		t.Error("Probe accepted a child that printed nothing")
	}
}
