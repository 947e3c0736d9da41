package integrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kinds of things integrate writes, as the state file names them.
const (
	KindMCP      = "mcp"       // our entry in a client's MCP configuration
	KindHook     = "hook"      // the capture hook in Claude Code's settings
	KindSkill    = "skill"     // the /compartmentalize SKILL.md
	KindClaudeMD = "claude-md" // the managed block in CLAUDE.md
)

// Item is one file integrate changed, and what it needs to take the change
// back: the byte-exact copy of the file from before our first change (or
// that there was no file), and the SHA-256 of what we last wrote, so an
// untouched file can be restored byte for byte.
type Item struct {
	Kind    string    `json:"kind"`
	Client  string    `json:"client"`
	Path    string    `json:"path"`
	Existed bool      `json:"existed"`
	Backup  string    `json:"backup,omitempty"`
	Written string    `json:"written_sha256"`
	At      time.Time `json:"at"`
	// Entry (mcp only) is our entry as we last wrote it, so a later run
	// tells our own entry from one the user wrote.
	Entry json.RawMessage `json:"entry,omitempty"`
	// UserEntry (mcp only) is the user's own entry that `integrate
	// --force` replaced; uninstall puts it back.
	UserEntry json.RawMessage `json:"user_entry,omitempty"`
}

// State is $HOME/.compartment/integrations.json (FORMAT.md, "Integration
// state"): the items integrate wrote, read by uninstall.
type State struct {
	Version int    `json:"version"`
	Items   []Item `json:"items"`
	path    string
	dir     string
	now     func() time.Time
}

// StateDir is where the state file and the backups live.
func StateDir(e Env) string { return e.home(".compartment") }

// LoadState reads the state file (an empty state when there is none).
func LoadState(e Env) (*State, error) {
	dir := StateDir(e)
	st := &State{Version: 1, path: filepath.Join(dir, "integrations.json"), dir: dir, now: time.Now}
	b, err := os.ReadFile(st.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("integrate: read %s: %w", st.path, err)
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("integrate: %s is damaged (%v); move it aside to start over", st.path, err)
	}
	if st.Version != 1 {
		return nil, fmt.Errorf("integrate: %s has version %d, this build knows 1", st.path, st.Version)
	}
	return st, nil
}

func (st *State) save() error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return fmt.Errorf("integrate: %w", err)
	}
	return writeAtomic(st.path, append(b, '\n'), 0o600)
}

// Find returns the item for kind and path.
func (st *State) Find(kind, path string) *Item {
	for i := range st.Items {
		if st.Items[i].Kind == kind && st.Items[i].Path == path {
			return &st.Items[i]
		}
	}
	return nil
}

func (st *State) drop(it *Item) {
	for i := range st.Items {
		if &st.Items[i] == it {
			st.Items = append(st.Items[:i], st.Items[i+1:]...)
			return
		}
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Change is what one write did (or, in a dry run, would do).
type Change struct {
	Path    string
	Action  string // "created", "updated", "unchanged", "restored", "removed"
	Backup  string // the copy taken before the change, if any
	Message string
}

// put writes content to path for kind/client: a byte-exact backup of the
// file first, then an atomic replace, then the state file. Writing what
// the file already holds changes nothing.
func (st *State) put(kind, client, path string, content []byte, dry bool) (Change, error) {
	return st.putWith(kind, client, path, content, dry, nil)
}

// putWith is put, with note called on the item before the state is saved.
// A symbolic link is written through: its target gets the new bytes and
// the link stays a link.
func (st *State) putWith(kind, client, path string, content []byte, dry bool, note func(*Item)) (Change, error) {
	target, err := resolveLinks(path)
	if err != nil {
		return Change{Path: path}, err
	}
	old, err := os.ReadFile(target)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{}, fmt.Errorf("integrate: read %s: %w", path, err)
	}
	if existed && bytes.Equal(old, content) {
		return Change{Path: path, Action: "unchanged"}, nil
	}
	ch := Change{Path: path, Action: "created"}
	if existed {
		ch.Action = "updated"
	}
	if existed {
		if err := writable(path, target); err != nil {
			return Change{Path: path}, err
		}
	}
	if dry {
		return ch, nil
	}
	it := st.Find(kind, path)
	if it == nil || !existed || it.Written != sum(old) {
		// Our last write is not what the file holds now (or we never
		// wrote it): what is there is the user's, and is kept.
		fresh := Item{Kind: kind, Client: client, Path: path, Existed: existed}
		if existed {
			if fresh.Backup, err = st.backup(client, path, old); err != nil {
				return Change{}, err
			}
			ch.Backup = fresh.Backup
		}
		if it == nil {
			st.Items = append(st.Items, fresh)
			it = &st.Items[len(st.Items)-1]
		} else {
			*it = fresh
		}
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return Change{}, fmt.Errorf("integrate: %w", err)
	}
	if err := writeAtomic(target, content, mode); err != nil {
		return Change{}, err
	}
	it.Written, it.At = sum(content), st.now().UTC()
	if note != nil {
		note(it)
	}
	return ch, st.save()
}

// backup copies the file's bytes into the backups directory.
func (st *State) backup(client, path string, b []byte) (string, error) {
	dir := filepath.Join(st.dir, "backups")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("integrate: %w", err)
	}
	stamp := strings.Replace(st.now().UTC().Format("20060102T150405.000000000Z"), ".", "", 1)
	name := stamp + "-" + client + "-" + filepath.Base(path)
	dst := filepath.Join(dir, name)
	if err := writeAtomic(dst, b, 0o600); err != nil {
		return "", err
	}
	return dst, nil
}

// take undoes one item. cur is the file's bytes now; strip removes our
// part from content the user changed since (nil when it cannot).
func (st *State) take(it *Item, strip func([]byte) ([]byte, error), dry bool) (Change, error) {
	cur, err := os.ReadFile(it.Path)
	if errors.Is(err, os.ErrNotExist) {
		if !dry {
			st.drop(it)
			return Change{Path: it.Path, Action: "unchanged", Message: "already gone"}, st.save()
		}
		return Change{Path: it.Path, Action: "unchanged", Message: "already gone"}, nil
	}
	if err != nil {
		return Change{}, fmt.Errorf("integrate: read %s: %w", it.Path, err)
	}
	target, err := resolveLinks(it.Path)
	if err != nil {
		return Change{Path: it.Path}, err
	}
	if err := writable(it.Path, target); err != nil {
		return Change{Path: it.Path}, err
	}
	var ch Change
	switch {
	case sum(cur) == it.Written && !it.Existed:
		ch = Change{Path: it.Path, Action: "removed"}
		if !dry {
			if err := os.Remove(target); err != nil {
				return Change{}, fmt.Errorf("integrate: %w", err)
			}
		}
	case sum(cur) == it.Written:
		orig, err := os.ReadFile(it.Backup)
		if err != nil {
			return Change{}, fmt.Errorf("integrate: the backup of %s is missing (%v); nothing was changed", it.Path, err)
		}
		ch = Change{Path: it.Path, Action: "restored", Backup: it.Backup}
		if !dry {
			if err := writeAtomic(target, orig, modeOf(target)); err != nil {
				return Change{}, err
			}
		}
	default:
		// Changed since we wrote it: take only our part out.
		out, err := strip(cur)
		if err != nil {
			return Change{}, err
		}
		if bytes.Equal(out, cur) {
			ch = Change{Path: it.Path, Action: "unchanged", Message: "nothing of ours left in it"}
			break
		}
		ch = Change{Path: it.Path, Action: "updated"}
		if !dry {
			if ch.Backup, err = st.backup(it.Client, it.Path, cur); err != nil {
				return Change{}, err
			}
			if err := writeAtomic(target, out, modeOf(target)); err != nil {
				return Change{}, err
			}
		}
	}
	if dry {
		return ch, nil
	}
	st.drop(it)
	return ch, st.save()
}

// takeBack undoes kind's change to path: the recorded item when there is
// one, else (a file we never recorded) strip alone, after a backup.
func (st *State) takeBack(kind, client, path string, strip func([]byte) ([]byte, error), dry bool) (Change, error) {
	if it := st.Find(kind, path); it != nil {
		return st.take(it, strip, dry)
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return Change{Action: "unchanged"}, nil
	}
	out, err := strip(cur)
	if err != nil || bytes.Equal(out, cur) {
		return Change{Path: path, Action: "unchanged"}, err
	}
	target, err := resolveLinks(path)
	if err != nil {
		return Change{Path: path}, err
	}
	if err := writable(path, target); err != nil {
		return Change{Path: path}, err
	}
	if dry {
		return Change{Path: path, Action: "updated"}, nil
	}
	bk, err := st.backup(client, path, cur)
	if err != nil {
		return Change{}, err
	}
	return Change{Path: path, Action: "updated", Backup: bk}, writeAtomic(target, out, modeOf(target))
}

// ErrReadOnly marks a file integrate will not change because the user
// write-protected it.
var ErrReadOnly = errors.New("integrate: the file is write-protected")

// writable refuses a file whose owner-write bit is off. The bits are
// checked, not the outcome of a write: the atomic replace renames over the
// file, which the directory allows even when the file is read-only, and
// root may write anything.
func writable(path, target string) error {
	fi, err := os.Stat(target)
	if err != nil {
		return nil // not there yet: the directory decides
	}
	if fi.Mode().Perm()&0o200 != 0 {
		return nil
	}
	return &readOnlyError{path: path, target: target, mode: fi.Mode().Perm()}
}

type readOnlyError struct {
	path, target string
	mode         os.FileMode
}

func (e *readOnlyError) Error() string {
	return fmt.Sprintf("%s is write-protected (mode %04o), so compartment left it as it was; "+
		"make it writable (chmod u+w %s) and run the command again, or add the entry by hand", e.path, e.mode, e.target)
}

func (e *readOnlyError) Is(target error) bool { return target == ErrReadOnly }

// resolveLinks follows symbolic links from path to the file they name,
// which may not exist yet (a dangling link is filled in, not replaced).
func resolveLinks(path string) (string, error) {
	cur := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return cur, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("integrate: %s: too many levels of symbolic links; nothing was written", path)
		}
		dst, err := os.Readlink(cur)
		if err != nil {
			return "", fmt.Errorf("integrate: read the link %s: %w", cur, err)
		}
		if !filepath.IsAbs(dst) {
			dst = filepath.Join(filepath.Dir(cur), dst)
		}
		cur = dst
	}
}

func modeOf(path string) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o600
}

// writeAtomic replaces path with b: a temporary file in the same
// directory, fsync, rename, fsync of the directory.
func writeAtomic(path string, b []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("integrate: write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("integrate: write %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		return fail(err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("integrate: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("integrate: write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
