//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd in a new process group, so killGroup reaches the
// shell and everything it started.
func inOwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to cmd's whole process group: a real kill -9.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
