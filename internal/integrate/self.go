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
