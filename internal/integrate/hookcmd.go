package integrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HookCommand is the shell command Claude Code runs for the capture hook:
// the server's command line with hook capture. pinVault, when not "",
// replaces the server's vault, so the hook never follows
// COMPARTMENT_VAULT.
func HookCommand(srv Server, pinVault string) string {
	parts := []string{ShellQuote(srv.Command)}
	caller := srv.Caller
	if caller == "" {
		caller = "claude-code"
	}
	parts = append(parts, "--caller", ShellQuote(caller))
	v := srv.Vault
	if pinVault != "" {
		v = pinVault
	}
	if v != "" {
		parts = append(parts, "--vault", ShellQuote(v))
	}
	return strings.Join(append(parts, "hook", "capture"), " ")
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:=@%", r)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookLogMax is the size past which hook.log is rotated to hook.log.1.
const hookLogMax = 1 << 20

// HookLog appends one line to hook.log beside the integration state (kept
// under 1 MiB): the capture hook's only output, since Claude Code shows
// what a hook prints in the transcript. It never fails loudly.
func HookLog(e Env, err error) {
	dir := StateDir(e)
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	p := filepath.Join(dir, "hook.log")
	if fi, serr := os.Stat(p); serr == nil && fi.Size() > hookLogMax {
		os.Rename(p, p+".1")
	}
	f, ferr := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(err.Error(), "\n", " "))
}
