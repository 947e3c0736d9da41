//go:build failpoints && unix

package vaultfmt

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestBuildFailpoints: a build that fails mid-write (the commit then
// compacts under the lock, which fails the same way), and a commit that
// stops before or at its rename, leave the vault file exactly as it was,
// keep every write made during the build, remove the build file, and the
// next build succeeds.
func TestBuildFailpoints(t *testing.T) {
	for _, name := range []string{FailCompactMidWrite, FailCompactBeforeRename, FailCompactRename} {
		t.Run(name, func(t *testing.T) {
			path, v, c := newTestVault(t)
			mustAppend(t, v, c, put(1, "one"), put(2, "two"))
			b := startBuild(t, v)
			mustAppend(t, v, c, put(3, "stored during the build"))
			SetFailpoint(name, syscall.ENOSPC)
			defer SetFailpoint(name, nil)
			runErr := b.Run()
			if (runErr != nil) != (name == FailCompactMidWrite) {
				t.Fatalf("run: %v", runErr)
			}
			before := readFile(t, path)
			done, err := v.CommitBuild(b)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("commit: %v, %v; want the injected error", done, err)
			}
			SetFailpoint(name, nil)
			if after := readFile(t, path); !bytes.Equal(after, before) {
				t.Fatalf("vault file changed: %d bytes before, %d after", len(before), len(after))
			}
			for _, f := range []string{path + buildSuffix, path + ".tmp"} {
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s left: %v", f, err)
				}
			}
			_, c2 := reopen(t, path)
			sameItems(t, c2, c)
			b = startBuild(t, v)
			mustAppend(t, v, c, put(4, "four"))
			if err := b.Run(); err != nil {
				t.Fatal(err)
			}
			if done, err := v.CommitBuild(b); err != nil || !done {
				t.Fatalf("commit after the failure: %v, %v", done, err)
			}
			_, c3 := reopen(t, path)
			sameItems(t, c3, c)
		})
	}
}
