package integrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
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

// Options change how Wire treats an existing entry.
type Options struct {
	DryRun bool // say what would change, write nothing
	// Force replaces a `compartment` entry the user wrote themselves; the
	// state keeps theirs so uninstall puts it back.
	Force bool
}

// Wire merges our entry into the client's file. A file that cannot be
// edited safely is left as it was: the error says why, and the caller
// prints Block. An entry of the user's own is never replaced without
// opt.Force (a *UserEntryError says how it differs).
func Wire(e Env, st *State, c *Client, s Server, opt Options) (Change, error) {
	path := c.File(e)
	if path == "" {
		return Change{Action: "paste", Message: c.Note}, nil
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{Path: path}, fmt.Errorf("integrate: read %s: %w", path, err)
	}
	entry := c.Entry(s.Command, s.Args(c))
	mine := normalizedEntry(c.Loc, entry)
	it := st.Find(KindMCP, path)
	var userEntry json.RawMessage
	if it != nil {
		userEntry = it.UserEntry
	}
	if cur, _ := Lookup(c.Format, src, c.Loc); cur != nil && !reflect.DeepEqual(cur, mine) && !ours(it, cur) {
		if !opt.Force {
			return Change{Path: path, Action: "refused"}, &UserEntryError{Path: path, Diff: entryDiff(cur, mine)}
		}
		userEntry = entryJSON(cur)
	}
	out, err := Merge(c.Format, src, c.Loc, entry)
	if err != nil {
		return Change{Path: path}, fmt.Errorf("%s was left untouched: %s", path, reason(err))
	}
	ch, err := st.putWith(KindMCP, c.ID, path, out, opt.DryRun, func(it *Item) {
		it.Entry, it.UserEntry = entryJSON(mine), userEntry
	})
	ch.Message = c.Note
	return ch, err
}

// reason is the part of an editor error a person reads.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrUnparsable.Error()+": ")
}

// Unwire takes our entry out of one client's file: the backup comes back
// byte for byte when the file is as we left it, else only our entry goes
// (and the user's own entry that --force replaced comes back). A file we
// never recorded has its entry removed when it is ours to remove.
func Unwire(e Env, st *State, c *Client, dry bool) (Change, error) {
	path := c.File(e)
	if path == "" {
		return Change{Action: "unchanged"}, nil
	}
	var userEntry json.RawMessage
	if it := st.Find(KindMCP, path); it != nil {
		userEntry = it.UserEntry
	}
	return st.takeBack(KindMCP, c.ID, path, stripEntry(c, path, userEntry), dry)
}

// stripEntry returns the function that takes our entry out of a file's
// bytes, putting userEntry (when recorded) back in its place.
func stripEntry(c *Client, path string, userEntry json.RawMessage) func([]byte) ([]byte, error) {
	return func(cur []byte) ([]byte, error) {
		var out []byte
		var err error
		if len(userEntry) > 0 {
			out, err = restoreUserEntry(c, cur, userEntry)
		} else {
			out, _, err = Remove(c.Format, cur, c.Loc)
		}
		if err != nil {
			return nil, fmt.Errorf("%s was left untouched: %s; remove its %q entry by hand", path, reason(err), Name)
		}
		return out, nil
	}
}

// restoreUserEntry sets the entry at c.Loc back to the user's own.
func restoreUserEntry(c *Client, cur []byte, raw json.RawMessage) ([]byte, error) {
	v, err := orderedFromJSON(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(orderedObject)
	if !ok {
		return nil, fmt.Errorf("%w: the recorded entry is not an object", ErrUnparsable)
	}
	if c.Loc.Seq {
		kept := orderedObject{}
		for _, m := range obj {
			if m.k != "name" {
				kept = append(kept, m)
			}
		}
		obj = kept
	}
	return Merge(c.Format, cur, c.Loc, obj)
}
