package integrate

import "path/filepath"

// ServerCommand is how a client's configuration names the compartment
// binary at self: by its bare name when the "compartment" first on e's
// PATH is that very file (so an update in place keeps working and the
// configuration stays readable), else by its resolved path.
func ServerCommand(e Env, self string) string {
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	if e.LookPath == nil {
		return self
	}
	if onPath, err := e.LookPath("compartment"); err == nil {
		if r, err := filepath.EvalSymlinks(onPath); err == nil && r == self {
			return "compartment"
		}
	}
	return self
}

// ServerFor is the server a client is wired to run: the binary at self
// ([ServerCommand]), with --vault only when vault is not defaultVault (so
// an entry for the default vault keeps following COMPARTMENT_VAULT) and
// --caller only when caller is not defaultCaller (so each client is
// otherwise named by its own id).
func ServerFor(e Env, self, vault, defaultVault, caller, defaultCaller string) Server {
	s := Server{Command: ServerCommand(e, self)}
	if vault != defaultVault {
		s.Vault = vault
	}
	if caller != defaultCaller {
		s.Caller = caller
	}
	return s
}
