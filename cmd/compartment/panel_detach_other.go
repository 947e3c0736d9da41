//go:build !unix

package main

import "os/exec"

// detach does nothing here: a process started on Windows outlives its
// console already.
func detach(*exec.Cmd) {}
