package capture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// FileSource is the source of the memories of one memory file.
func FileSource(path string) string { return "Claude Code memory file " + path }

// DefaultCaller is who the memories of Claude Code's files are stored as
// when no caller is given: the caller the installed hook names.
const DefaultCaller = "claude-code"

// MemoryFiles lists the memory files Claude Code keeps: the user's
// CLAUDE.md, every project's memory directory, and the CLAUDE.md files
// under the given project directories (absolute; hidden directories,
// node_modules and vendor are not entered), each once. A link to a
// regular file is listed: [ReadMemoryFile] decides whether it may be read.
func MemoryFiles(e integrate.Env, dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(integrate.ClaudeMD(e))
	mem, _ := filepath.Glob(filepath.Join(integrate.ClaudeProjects(e), "*", "memory", "*.md"))
	sort.Strings(mem)
	for _, p := range mem {
		add(p)
	}
	for _, root := range dirs {
		filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if de.IsDir() {
				if name := de.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
					return filepath.SkipDir
				}
				return nil
			}
			if de.Name() == "CLAUDE.md" || de.Name() == "CLAUDE.local.md" {
				add(p)
			}
			return nil
		})
	}
	return out
}

// FileClaims are the memories of one memory file.
type FileClaims struct {
	Path     string
	Day      string // the file's modification day, stored as discovered
	Memories []Memory
}

// Skipped is a file that was not read, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ReadFiles reads and splits memory files. A file [ReadMemoryFile] refuses
// (a link, a binary, one too large) is skipped with its reason, not an
// error: one bad file does not stop the others. A file that cannot be
// read at all (permissions, I/O) is an error.
func ReadFiles(e integrate.Env, paths []string) ([]FileClaims, []Skipped, error) {
	var out []FileClaims
	var skipped []Skipped
	for _, p := range paths {
		text, day, err := ReadMemoryFile(e, p)
		if reason, ok := refusal(err); ok {
			skipped = append(skipped, Skipped{Path: p, Reason: reason})
			continue
		}
		if err != nil {
			return out, skipped, err
		}
		out = append(out, FileClaims{Path: p, Day: day, Memories: File(text, MaxChars)})
	}
	return out, skipped, nil
}

// refusal names why ReadMemoryFile refused a file, when it did.
func refusal(err error) (string, bool) {
	for _, r := range []error{ErrNotRegular, ErrOutside, ErrNotText, ErrTooLarge, fs.ErrNotExist} {
		if errors.Is(err, r) {
			if r == fs.ErrNotExist {
				return "no longer exists", true
			}
			return r.Error(), true
		}
	}
	return "", false
}

// Counts is what storing claims did.
type Counts struct {
	Files      int `json:"files"`
	Claims     int `json:"claims"`
	Stored     int `json:"stored"`
	Duplicates int `json:"duplicates"`
	Refused    int `json:"refused"`
}

func (c *Counts) add(o Counts) {
	c.Files += o.Files
	c.Claims += o.Claims
	c.Stored += o.Stored
	c.Duplicates += o.Duplicates
	c.Refused += o.Refused
}

// StoreFiles stores the claims of each file, with the file as source and
// its modification day as discovered, into namespace ("" = the caller's
// default).
func StoreFiles(v *vault.Vault, files []FileClaims, namespace string) (Counts, error) {
	var n Counts
	for _, f := range files {
		c, err := Store(v, f.Memories, FileSource(f.Path), f.Day, namespace)
		c.Files = 1
		n.add(c)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Store stores each claim on its own, so one the vault refuses (too long
// for a lowered max_memory_chars, say) does not stop the rest. A claim
// already in the vault counts as a duplicate.
func Store(v *vault.Vault, mems []Memory, source, discovered, namespace string) (Counts, error) {
	n := Counts{Claims: len(mems)}
	for _, m := range mems {
		imp := m.Importance
		res, err := v.Store(vault.StoreRequest{Text: m.Text, Source: source, Importance: &imp, Discovered: discovered, Namespace: namespace})
		switch {
		case err != nil && errors.Is(err, vault.ErrInvalid):
			n.Refused++
		case err != nil:
			return n, err
		case res.Stored:
			n.Stored++
		default:
			n.Duplicates++
		}
	}
	return n, nil
}

// Import is one import of what Claude Code wrote: every memory file
// ([MemoryFiles]) and the CLAUDE.md files under Dirs. It is copy-only (the
// files are only read) and repeatable: a claim already in the vault
// counts as a duplicate, not stored again.
type Import struct {
	Env       integrate.Env
	Dirs      []string // absolute project directories
	Namespace string   // "" = the caller's default
	DryRun    bool     // read and count, store nothing
	// Caller stores the claims; CallerSet false means the user named
	// none, and they are stored as [DefaultCaller].
	Caller    string
	CallerSet bool
	// Credential is the key to open the vault with: asked for only when
	// there is something to store.
	Credential func() (vaultfmt.Unlock, error)
	Open       func(u vaultfmt.Unlock, caller string) (*vault.Vault, error)
}

// ImportReport is what an [Import] did (the JSON of `import-claude
// --json`).
type ImportReport struct {
	Counts
	Skipped []Skipped    `json:"skipped"` // files not read (a link, not text, too large), with the reason
	DryRun  bool         `json:"dry_run"`
	Read    []FileClaims `json:"-"` // the claims of each file read
}

// Run reads every memory file and stores its claims.
func (im Import) Run() (ImportReport, error) {
	rep := ImportReport{DryRun: im.DryRun}
	files, skipped, err := ReadFiles(im.Env, MemoryFiles(im.Env, im.Dirs))
	rep.Read, rep.Skipped, rep.Files = files, skipped, len(files)
	if err != nil {
		return rep, err
	}
	for _, f := range files {
		rep.Claims += len(f.Memories)
	}
	if im.DryRun || rep.Claims == 0 {
		return rep, nil
	}
	u, err := im.Credential()
	if err != nil {
		return rep, err
	}
	caller := im.Caller
	if !im.CallerSet {
		caller = DefaultCaller
	}
	v, err := im.Open(u, caller)
	if err != nil {
		return rep, err
	}
	defer v.Close()
	rep.Counts, err = StoreFiles(v, files, im.Namespace)
	return rep, err
}
