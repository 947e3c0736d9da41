package capture

// The pending list: memory files the hook saw while the vault was locked
// (FORMAT.md, "<vault>.pending.json"). It holds paths, never content: the
// file is read when the vault is next unlocked.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
)

// MaxPending bounds the list. A path already listed is not added again,
// so this is this many distinct files; past it the oldest entry goes.
const MaxPending = 1000

// pendingVersion is the list's format version: part of the format.
const pendingVersion = 1

// PendingFile is one file waiting to be imported.
type PendingFile struct {
	Path   string    `json:"path"`
	Caller string    `json:"caller"`
	At     time.Time `json:"at"`
}

// key names an entry: a file re-listed during an import has a newer time
// and so another key, and stays listed.
func (f PendingFile) key() string {
	return fmt.Sprintf("%s\x00%s\x00%d", f.Path, f.Caller, f.At.UnixNano())
}

type pendingList struct {
	Version int           `json:"version"`
	Files   []PendingFile `json:"files"`
}

// PendingPath is the pending list of the vault at vaultPath.
func PendingPath(vaultPath string) string { return vaultPath + ".pending.json" }

// AddPending records that file (absolute) waits to be imported, as caller,
// when the vault is next unlocked. A file already listed keeps one entry,
// with the newer time.
func AddPending(vaultPath, file, caller string, at time.Time) error {
	return withPending(vaultPath, func(l *pendingList) bool {
		kept := l.Files[:0]
		for _, f := range l.Files {
			if f.Path != file || f.Caller != caller {
				kept = append(kept, f)
			}
		}
		l.Files = append(kept, PendingFile{Path: file, Caller: caller, At: at.UTC()})
		if n := len(l.Files) - MaxPending; n > 0 {
			l.Files = l.Files[n:]
		}
		return true
	})
}

// Pending lists the files waiting, oldest first.
func Pending(vaultPath string) ([]PendingFile, error) {
	l, err := readPending(PendingPath(vaultPath))
	return l.Files, err
}

// Opener opens the vault as caller for [ImportPending]; release is called
// when the import is done with it. It returns [ErrCallerUnavailable] when
// it cannot open the vault as that caller (an MCP server opens it only as
// its own): those files stay listed for a later unlock.
type Opener func(caller string) (v *vault.Vault, release func(), err error)

// ErrCallerUnavailable: see [Opener].
var ErrCallerUnavailable = errors.New("capture: the vault is not open as this caller")

// PendingResult is what [ImportPending] did.
type PendingResult struct {
	Counts
	Skipped []Skipped `json:"skipped,omitempty"` // listed files no longer readable as memory files
	Left    int       `json:"left"`              // still listed (another caller's, or a failed store)
}

// ImportPending imports the files the hook listed while the vault was
// locked, reading each as it is now (so a file written three times during
// a break is stored once, at its last content), and takes the imported
// ones off the list. A file that is gone or no longer a memory file
// ([ReadMemoryFile]) is dropped with its reason. The list is not held
// locked while storing, so a hook running meanwhile can add to it; an
// entry re-added during the import stays for the next one. It does
// nothing, quickly, when no list exists.
func ImportPending(vaultPath string, e integrate.Env, open Opener) (PendingResult, error) {
	var res PendingResult
	files, err := Pending(vaultPath)
	if err != nil || len(files) == 0 {
		return res, err
	}
	byCaller := map[string][]PendingFile{}
	var callers []string
	for _, f := range files {
		if byCaller[f.Caller] == nil {
			callers = append(callers, f.Caller)
		}
		byCaller[f.Caller] = append(byCaller[f.Caller], f)
	}
	done := map[string]bool{}
	var firstErr error
	for _, caller := range callers {
		n, err := importAs(e, open, caller, byCaller[caller], done, &res)
		res.add(n)
		if err != nil && !errors.Is(err, ErrCallerUnavailable) && firstErr == nil {
			firstErr = err
		}
	}
	err = withPending(vaultPath, func(l *pendingList) bool {
		kept := l.Files[:0]
		for _, f := range l.Files {
			if !done[f.key()] {
				kept = append(kept, f)
			}
		}
		l.Files = kept
		res.Left = len(kept)
		return true
	})
	return res, errors.Join(firstErr, err)
}

// importAs stores one caller's pending files and marks each one done that
// was stored or dropped.
func importAs(e integrate.Env, open Opener, caller string, files []PendingFile, done map[string]bool, res *PendingResult) (Counts, error) {
	v, release, err := open(caller)
	if err != nil {
		return Counts{}, err
	}
	defer release()
	var n Counts
	for _, f := range files {
		claims, skipped, err := ReadFiles(e, []string{f.Path})
		if err != nil {
			return n, err
		}
		for _, s := range skipped {
			res.Skipped = append(res.Skipped, s)
			done[f.key()] = true
		}
		c, err := StoreFiles(v, claims, "")
		n.add(c)
		if err != nil {
			return n, err
		}
		done[f.key()] = true
	}
	return n, nil
}

// withPending runs change on the list under an exclusive lock on the
// vault's lock file (<vault>.lock, the same lock writers of the vault
// take, held only while the list is read and written) and writes the list
// back when change returns true: atomically (temporary file, fsync,
// rename, directory fsync), mode 0600, or removes it when it is empty.
func withPending(vaultPath string, change func(*pendingList) bool) error {
	lf, err := os.OpenFile(vaultPath+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("capture: pending list: %w", err)
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		return fmt.Errorf("capture: pending list: lock: %w", err)
	}
	path := PendingPath(vaultPath)
	l, err := readPending(path)
	if err != nil {
		return err
	}
	if !change(&l) {
		return nil
	}
	if len(l.Files) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("capture: pending list: %w", err)
		}
		return nil
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// readPending reads the list; a missing file is an empty list, one that
// does not parse or has another version is an error (it is never silently
// replaced: its paths would be lost).
func readPending(path string) (pendingList, error) {
	l := pendingList{Version: pendingVersion}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("capture: pending list: %w", err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("capture: pending list %s does not parse: %w", path, err)
	}
	if l.Version != pendingVersion {
		return l, fmt.Errorf("capture: pending list %s has version %d; this build reads version %d", path, l.Version, pendingVersion)
	}
	for _, f := range l.Files {
		if !filepath.IsAbs(f.Path) {
			return l, fmt.Errorf("capture: pending list %s lists a relative path", path)
		}
	}
	return l, nil
}

// writeAtomic replaces path with b: a temporary file in the same
// directory, fsync, rename, fsync of the directory.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("capture: write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("capture: write %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := f.Write(b); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("capture: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("capture: write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
