//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts the panel init starts in a session of its own, so closing
// the terminal init ran in does not close the panel.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
