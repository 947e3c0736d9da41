package testbin

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A command is built once: the second call gives the same executable
// without building again, and the executable runs.
func TestBuildOnceAndRun(t *testing.T) {
	c := &Command{Pkg: "./testdata/hello"}
	defer c.Remove()
	p := c.Path(t)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if again := c.Path(t); again != p {
		t.Fatalf("second build at %s, first at %s", again, p)
	}
	if st2, err := os.Stat(p); err != nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("the executable was built again: %v", err)
	}
	out, err := exec.Command(p, "from", "testbin").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "hello from testbin" {
		t.Fatalf("the built command printed %q", got)
	}
	c.Remove()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("Remove left %s: %v", p, err)
	}
}

// A package that does not build is an error naming it, every call.
func TestBuildFailureIsKept(t *testing.T) {
	c := &Command{Pkg: "./testdata/no-such-command"}
	defer c.Remove()
	for i := 0; i < 2; i++ {
		if _, err := c.Build(); err == nil || !strings.Contains(err.Error(), "no-such-command") {
			t.Fatalf("call %d: %v, want the build's error naming the package", i, err)
		}
	}
}
