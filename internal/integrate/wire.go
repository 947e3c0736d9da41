package integrate

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Server is the command line a client runs to start compartment serve.
type Server struct {
	Command string // the compartment binary
	Vault   string // --vault, "" for the default
	Caller  string // --caller, "" for the client's own ID
}

// Args are the arguments after the command: the globals, then serve.
func (s Server) Args(c *Client) []string {
	caller := s.Caller
	if caller == "" {
		caller = c.ID
	}
	args := []string{"--caller", caller}
	if s.Vault != "" {
		args = append(args, "--vault", s.Vault)
	}
	return append(args, "serve")
}

// Block is the configuration to paste by hand: the client's file with
// nothing in it but our entry.
func Block(c *Client, s Server) string {
	out, err := Merge(c.Format, nil, c.Loc, c.Entry(s.Command, s.Args(c)))
	if err != nil {
		return ""
	}
	return string(out)
}

// Wired says whether the client's file holds our entry.
func Wired(e Env, c *Client) bool {
	f := c.File(e)
	if f == "" {
		return false
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return false
	}
	v, err := Lookup(c.Format, b, c.Loc)
	return err == nil && v != nil
}

// Wire merges our entry into the client's file. A file that cannot be
// edited safely is left as it was: the error says why, and the caller
// prints Block.
func Wire(e Env, st *State, c *Client, s Server, dry bool) (Change, error) {
	path := c.File(e)
	if path == "" {
		return Change{Action: "paste", Message: c.Note}, nil
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{Path: path}, fmt.Errorf("integrate: read %s: %w", path, err)
	}
	out, err := Merge(c.Format, src, c.Loc, c.Entry(s.Command, s.Args(c)))
	if err != nil {
		return Change{Path: path}, fmt.Errorf("%s was left untouched: %s", path, reason(err))
	}
	ch, err := st.put(KindMCP, c.ID, path, out, dry)
	ch.Message = c.Note
	return ch, err
}

// reason is the part of an editor error a person reads.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrUnparsable.Error()+": ")
}

// Unwire takes our entry out of one client's file: the backup comes back
// byte for byte when the file is as we left it, else only our entry goes.
// A file we never recorded has its entry removed when it has one.
func Unwire(e Env, st *State, c *Client, dry bool) (Change, error) {
	path := c.File(e)
	if path == "" {
		return Change{Action: "unchanged"}, nil
	}
	strip := func(cur []byte) ([]byte, error) {
		out, _, err := Remove(c.Format, cur, c.Loc)
		if err != nil {
			return nil, fmt.Errorf("%s was left untouched: %s; remove its %q entry by hand", path, reason(err), Name)
		}
		return out, nil
	}
	return st.takeBack(KindMCP, c.ID, path, strip, dry)
}
