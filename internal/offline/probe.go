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

// Probe runs `exe offline-probe` and returns nil when the child reports
// that the guard held.
func Probe(exe string) error {
	out, err := exec.Command(exe, ProbeCommand).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	var ee *exec.ExitError
	switch {
	case err == nil && msg == "offline guard holds":
		return nil
	case errors.As(err, &ee) && msg != "":
		return errors.New(msg)
	case err != nil:
		return fmt.Errorf("offline: run the probe: %w", err)
	}
	return fmt.Errorf("offline: unexpected probe output %q", msg)
}
