package capture

// The pending list: memory files the hook saw, and turns it was handed,
// while the vault was locked (FORMAT.md, "<vault>.pending.json"). It holds
// places, never content: a file's path, a turn's transcript and message
// id. They are read when the vault is next unlocked.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/shape"
	"github.com/compartment/compartment/internal/vault"
)

// MaxPending bounds the list. A path already listed is not added again,
// so this is this many distinct files; past it the oldest entry goes.
const MaxPending = 1000

// pendingVersion is the list's format version written: part of the
// format. Version 1 (memory files only, no kind) is still read.
const pendingVersion = 2

// The kinds of entry (FORMAT.md 7.9).
const (
	KindFile = "file" // a memory file; the kind of every version 1 entry
	KindTurn = "turn" // a turn, by its transcript and message id
)

// PendingFile is one entry waiting to be imported: a memory file, or a
// turn ([KindTurn]: Path is its transcript, Turn the user message's id).
type PendingFile = shape.PendingFile

// key names an entry: one re-listed during an import has a newer time
// and so another key, and stays listed.
func key(f PendingFile) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d", place(f), f.Turn, f.Caller, f.At.UnixNano())
}

// place is what makes an entry unique with its caller.
func place(f PendingFile) string { return f.Kind + "\x00" + f.Path + "\x00" + f.Turn }

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
	return addPending(vaultPath, PendingFile{Kind: KindFile, Path: file, Caller: caller, At: at.UTC()})
}

// AddPendingTurn records that the turn whose user message has id turn in
// the transcript at transcript (absolute) waits to be imported, as caller,
// when the vault is next unlocked: where it is, never what it says. A turn
// already listed keeps one entry, with the newer time.
func AddPendingTurn(vaultPath, transcript, turn, caller string, at time.Time) error {
	if err := ValidTurnRef(transcript, turn); err != nil {
		return err
	}
	return addPending(vaultPath, PendingFile{Kind: KindTurn, Path: transcript, Turn: turn, Caller: caller, At: at.UTC()})
}

func addPending(vaultPath string, e PendingFile) error {
	return withPending(vaultPath, func(l *pendingList) bool {
		kept := l.Files[:0]
		for _, f := range l.Files {
			if place(f) != place(e) || f.Caller != e.Caller {
				kept = append(kept, f)
			}
		}
		l.Files = append(kept, e)
		if n := len(l.Files) - MaxPending; n > 0 {
			l.Files = l.Files[n:]
		}
		return true
	})
}

// Pending lists the entries waiting (memory files and turns), oldest
// first.
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
	Turns   int       `json:"turns"`             // listed turns read back and stored
	Skipped []Skipped `json:"skipped,omitempty"` // listed files no longer readable as memory files, turns no longer in their transcript
	Left    int       `json:"left"`              // still listed (another caller's, or a failed store)
}

// ImportPending imports the files and turns the hook listed while the
// vault was locked, reading each file as it is now (so a file written
// three times during a break is stored once, at its last content) and each
// turn from its transcript ([ReadTranscriptTurn], stored as [FromTurn]
// makes it, from chat), and takes the imported ones off the list. A file
// that is gone or no longer a memory file ([ReadMemoryFile]), or a turn no
// longer in a readable transcript, is dropped with its reason. The list is not held
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
			if !done[key(f)] {
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
		if f.Kind == KindTurn {
			c, err := importTurn(v, f, res)
			n.add(c)
			if err != nil {
				return n, err
			}
			done[key(f)] = true
			continue
		}
		claims, skipped, err := ReadFiles(e, []string{f.Path})
		if err != nil {
			return n, err
		}
		for _, s := range skipped {
			res.Skipped = append(res.Skipped, s)
			done[key(f)] = true
		}
		c, err := StoreFiles(v, claims, "")
		n.add(c)
		if err != nil {
			return n, err
		}
		done[key(f)] = true
	}
	return n, nil
}

// importTurn stores the memories of one listed turn, read back from its
// transcript; a turn that cannot be read back is skipped with its reason.
func importTurn(v *vault.Vault, f PendingFile, res *PendingResult) (Counts, error) {
	t, day, err := ReadTranscriptTurn(f.Path, f.Turn)
	if err != nil {
		reason := "the transcript cannot be read: " + err.Error()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			reason = "the transcript no longer exists"
		case errors.Is(err, ErrTurnNotFound):
			reason = ErrTurnNotFound.Error()
		case errors.Is(err, ErrNotRegular):
			reason = "the transcript is " + ErrNotRegular.Error()
		}
		res.Skipped = append(res.Skipped, Skipped{Path: f.Path + "#" + f.Turn, Reason: reason})
		return Counts{}, nil
	}
	c, err := Store(v, FromTurn(t, MaxChars), TurnSource, day, "")
	if err == nil {
		res.Turns++
	}
	return c, err
}

// TurnSource is the source of the memories of a turn.
const TurnSource = "from chat"

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
	l, err = parsePending(b)
	if err != nil {
		return l, fmt.Errorf("capture: pending list %s %w", path, err)
	}
	return l, nil
}

// parsePending reads the list's bytes (FORMAT.md 7.9): version 1 or 2,
// every path absolute, every kind known, a turn with a valid id
// ([ValidTurnRef]). A version 1 list is read as version 2 (its entries
// are memory files) and written back as version 2.
func parsePending(b []byte) (pendingList, error) {
	l := pendingList{Version: pendingVersion}
	if err := json.Unmarshal(b, &l); err != nil {
		return pendingList{Version: pendingVersion}, fmt.Errorf("does not parse: %w", err)
	}
	if l.Version != 1 && l.Version != pendingVersion {
		return l, fmt.Errorf("has version %d; this build reads versions 1 and %d", l.Version, pendingVersion)
	}
	for i, f := range l.Files {
		switch {
		case l.Version == 1 && f.Kind != "":
			return l, errors.New("is version 1 but names a kind")
		case l.Version == 1:
			l.Files[i].Kind = KindFile
		case f.Kind != KindFile && f.Kind != KindTurn:
			return l, fmt.Errorf("lists an entry of unknown kind %q", f.Kind)
		}
		if !filepath.IsAbs(f.Path) {
			return l, errors.New("lists a relative path")
		}
		if l.Files[i].Kind == KindTurn {
			if err := ValidTurnRef(f.Path, f.Turn); err != nil {
				return l, errors.New("lists a turn without a valid id")
			}
		} else if f.Turn != "" {
			return l, errors.New("lists a memory file with a turn id")
		}
	}
	l.Version = pendingVersion
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

// WaitingSummary says what waits on the list, for `hook status`: "2 memory
// files and 1 turn", or "" when nothing does.
func WaitingSummary(entries []PendingFile) string {
	files, turns := 0, 0
	for _, f := range entries {
		if f.Kind == KindTurn {
			turns++
		} else {
			files++
		}
	}
	return filesAndTurns(files, turns)
}

// Summary says what an import stored, for the unlock that ran it, or ""
// when nothing listed was read.
func (r PendingResult) Summary() string {
	what := filesAndTurns(r.Files, r.Turns)
	if what == "" {
		return ""
	}
	return fmt.Sprintf("imported %d new memories from %s captured while the vault was locked", r.Stored, what)
}

func filesAndTurns(files, turns int) string {
	var parts []string
	if files > 0 {
		parts = append(parts, plural(files, "memory file", "memory files"))
	}
	if turns > 0 {
		parts = append(parts, plural(turns, "turn", "turns"))
	}
	return strings.Join(parts, " and ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
