package integrate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Targets are the clients `integrate` wires: every installed client that
// has a file when all is set, and the named ones (by id or alias). An
// unknown name is refused with the known ones; no name and no all is
// refused with the way to name one.
func Targets(e Env, names []string, all bool) ([]*Client, error) {
	if !all && len(names) == 0 {
		return nil, errors.New("name a client (`compartment integrate claude`), or use --list or --all")
	}
	var out []*Client
	if all {
		for i := range Clients {
			if c := &Clients[i]; c.Installed(e) && c.File(e) != "" {
				out = append(out, c)
			}
		}
	}
	for _, name := range names {
		c, ok := Find(name)
		if !ok {
			return nil, fmt.Errorf("unknown client %q; known clients: %s", name, strings.Join(IDs(), ", "))
		}
		out = append(out, c)
	}
	return out, nil
}

// ClientRow is one client as `integrate --list` shows it.
type ClientRow struct {
	Client    string `json:"client"`
	Name      string `json:"name"`
	Installed bool   `json:"installed"`
	Wired     bool   `json:"wired"`
	File      string `json:"file"` // "" where the client keeps its servers where compartment cannot edit them
	Format    string `json:"format"`
}

// List is every client: installed here, wired to compartment, its file.
func List(e Env) []ClientRow {
	rows := make([]ClientRow, len(Clients))
	for i := range Clients {
		c := &Clients[i]
		rows[i] = ClientRow{Client: c.ID, Name: c.Name, Installed: c.Installed(e), Wired: Wired(e, c), File: c.File(e), Format: c.Format.String()}
	}
	return rows
}

// Undone is one file uninstall took back (a row of `uninstall --json`).
type Undone struct {
	Kind   string `json:"kind"`
	Client string `json:"client"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Backup string `json:"backup"`
	Error  string `json:"error,omitempty"`
	Change Change `json:"-"`
}

// Uninstall takes back every item integrate wrote ([Undo]), newest first:
// two writes to one file (Hermes' MCP entry, then its memory provider)
// are each restored from their own backup, so the file ends byte for byte
// as it was. An item that fails is reported in its row (and in the joined
// error) and does not stop the others.
func Uninstall(e Env, st *State, dry bool) ([]Undone, error) {
	items := slices.Clone(st.Items)
	slices.Reverse(items)
	var out []Undone
	var errs []error
	for _, item := range items {
		it := st.Find(item.Kind, item.Path)
		if it == nil {
			continue
		}
		ch, err := Undo(e, st, it, dry)
		row := Undone{Kind: item.Kind, Client: item.Client, Path: item.Path, Action: ch.Action, Backup: ch.Backup, Change: ch}
		if err != nil {
			row.Error = err.Error()
			errs = append(errs, err)
		}
		out = append(out, row)
	}
	return out, errors.Join(errs...)
}

// Connection is what wiring one client did (a row of `integrate --json`):
// its MCP entry, or the block to paste by hand where compartment cannot
// edit the client's file or the write failed, then its extra steps.
type Connection struct {
	Client string `json:"client"`
	File   string `json:"file"`
	Action string `json:"action"`
	Block  string `json:"block,omitempty"`
	MCP    Change `json:"-"`
	Steps  []Step `json:"-"`
	// WireFailed: the MCP entry was not written (the error says why);
	// no extra step was taken.
	WireFailed bool `json:"-"`
}

// Connect wires one client: its MCP entry ([Wire]), then the steps that
// come with it ([WireExtras]). An entry the user wrote themselves stops
// it (unless Force); any other failure to write the entry gives the
// block to paste.
func Connect(e Env, st *State, c *Client, s Server, o ExtraOptions) (Connection, error) {
	conn := Connection{Client: c.ID, File: c.File(e)}
	ch, err := Wire(e, st, c, s, o.Options)
	conn.MCP, conn.Action = ch, ch.Action
	if err != nil {
		conn.WireFailed = true
		if !errors.Is(err, ErrUserEntry) {
			conn.Block = Block(c, s)
		}
		return conn, err
	}
	if ch.Action == "paste" {
		conn.Block = Block(c, s)
	}
	conn.Steps, err = WireExtras(e, st, c, s, o)
	return conn, err
}
