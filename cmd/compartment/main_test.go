package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/compartment/compartment/internal/hermetic"
)

// The CLI tests run the real binary, built once per test run.

var testBin struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	hermetic.Clear()
	code := m.Run()
	if testBin.dir != "" {
		os.RemoveAll(testBin.dir)
	}
	if relBin.dir != "" {
		os.RemoveAll(relBin.dir)
	}
	os.Exit(code)
}

// builtBinary returns the path of the compartment binary built from this
// package.
func builtBinary(t *testing.T) string {
	t.Helper()
	testBin.once.Do(func() {
		testBin.dir, testBin.err = os.MkdirTemp("", "compartment-cli-test")
		if testBin.err != nil {
			return
		}
		testBin.path = filepath.Join(testBin.dir, "compartment")
		testBin.out, testBin.err = exec.Command("go", "build", "-o", testBin.path, ".").CombinedOutput()
	})
	if testBin.err != nil {
		t.Fatalf("go build: %v\n%s", testBin.err, testBin.out)
	}
	return testBin.path
}
