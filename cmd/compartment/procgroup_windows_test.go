package main

import "os/exec"

// inOwnGroup has nothing to set on Windows: killGroup ends the process
// itself, the nearest thing to kill -9 there.
func inOwnGroup(cmd *exec.Cmd) {}

// killGroup terminates cmd's process (TerminateProcess).
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
