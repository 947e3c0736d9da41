package session

import (
	"errors"
	"strings"
	"testing"
)

// TestNoBootSessions: Linux has unlock sessions; every other system gets a
// refusal that `lock` tolerates (ErrNoRAMDir) and that names the way to
// unlock there instead.
func TestNoBootSessions(t *testing.T) {
	if err := noBootSessions("linux"); err != nil {
		t.Fatalf("linux: %v", err)
	}
	for _, goos := range []string{"darwin", "windows", "freebsd"} {
		err := noBootSessions(goos)
		if !errors.Is(err, ErrNoRAMDir) {
			t.Fatalf("%s: %v does not match ErrNoRAMDir", goos, err)
		}
		if !strings.Contains(err.Error(), "COMPARTMENT_PASSPHRASE") {
			t.Fatalf("%s: %q does not name COMPARTMENT_PASSPHRASE", goos, err)
		}
		if strings.Contains(err.Error(), "/dev/shm") {
			t.Fatalf("%s: %q talks about Linux paths", goos, err)
		}
	}
}
