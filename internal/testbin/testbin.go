package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// Compartment is the import path of the CLI the end-to-end tests drive.
const Compartment = "github.com/compartment/compartment/cmd/compartment"

// Command is one main package, built at most once. Declare it as a
// package variable of the test and call [Command.Remove] from TestMain.
type Command struct {
	// Pkg is the package to build: an import path, or a path relative to
	// the test's directory.
	Pkg string
	// Env is the environment of `go build`; nil means the process's at the
	// time of the build. A test that moves HOME sets the environment it
	// started with, so Go's build cache stays where it is.
	Env []string

	once sync.Once
	dir  string
	path string
	err  error
}

// Build builds the command the first time it is called and returns the
// executable's path, or the build's error with go's output, on every call.
func (c *Command) Build() (string, error) {
	c.once.Do(func() {
		c.dir, c.err = os.MkdirTemp("", "compartment-testbin-")
		if c.err != nil {
			c.err = fmt.Errorf("testbin: %w", c.err)
			return
		}
		c.path = filepath.Join(c.dir, path.Base(c.Pkg))
		cmd := exec.Command(goTool(), "build", "-o", c.path, c.Pkg)
		cmd.Env = c.Env
		if out, err := cmd.CombinedOutput(); err != nil {
			c.err = fmt.Errorf("testbin: go build %s: %v\n%s", c.Pkg, err, out)
		}
	})
	return c.path, c.err
}

// Path is [Command.Build] for a test: a failed build fails t.
func (c *Command) Path(t testing.TB) string {
	t.Helper()
	p, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Remove deletes what Build made, if it made anything.
func (c *Command) Remove() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go" // not on PATH: exec's error then names it
}
