package offline

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ProbeCommand is the hidden CLI command that runs [RunProbe]: the guard
// cannot be undone, so it is tried in a child process.
const ProbeCommand = "offline-probe"

// RunProbe installs the guard in this process, then checks that a TCP and
// a UDP socket (IPv4 and IPv6) are refused and a Unix socket is not. No
// packet is ever sent: only socket(2) is called.
func RunProbe() error {
	if err := Enforce(); err != nil {
		return err
	}
	return probeSockets()
}

// ProbeHolds is the first line the probe child prints when the guard held;
// the second is its [Layers].
const ProbeHolds = "offline guard holds"

// Probe runs `exe offline-probe` and returns nil when the child reports
// that the guard held, with the child's [Layers] (what the guard
// installed there, "" when the child did not say).
func Probe(exe string) (string, error) {
	out, err := exec.Command(exe, ProbeCommand).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	first, layers, _ := strings.Cut(msg, "\n")
	var ee *exec.ExitError
	switch {
	case err == nil && first == ProbeHolds:
		return strings.TrimSpace(layers), nil
	case errors.As(err, &ee) && msg != "":
		return "", errors.New(msg)
	case err != nil:
		return "", fmt.Errorf("offline: run the probe: %w", err)
	}
	return "", fmt.Errorf("offline: unexpected probe output %q", msg)
}
