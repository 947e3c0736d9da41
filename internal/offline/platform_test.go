package offline

import (
	"errors"
	"strings"
	"testing"
)

// TestUnsupportedNamesAlternative: where the guard cannot be installed the
// refusal is ErrUnsupported and says what to do on that system.
func TestUnsupportedNamesAlternative(t *testing.T) {
	for _, c := range []struct{ goos, goarch, want string }{
		{"darwin", "arm64", "sandbox-exec"},
		{"windows", "amd64", "Firewall"},
		{"linux", "riscv64", "unshare -rn"},
		{"freebsd", "amd64", "no network"},
	} {
		err := unsupported(c.goos, c.goarch)
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%s/%s: %v is not ErrUnsupported", c.goos, c.goarch, err)
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, c.goos+"/"+c.goarch) {
			t.Fatalf("%s/%s: %q does not name %q and the platform", c.goos, c.goarch, msg, c.want)
		}
	}
}
