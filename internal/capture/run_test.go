package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// hookFor is a Hook on the real vault at path, unlocked when unlocked is
// set; opened records who the vault was opened as.
func hookFor(t *testing.T, e Hook, path string, unlocked bool, opened *[]string) Hook {
	t.Helper()
	e.Vault = path
	e.Credential = func() (vaultfmt.Unlock, bool) {
		return vaultfmt.Unlock{Passphrase: []byte(testPass)}, unlocked
	}
	e.Open = func(u vaultfmt.Unlock, caller string) (*vault.Vault, error) {
		*opened = append(*opened, caller)
		return vault.Open(path, vault.Options{Unlock: u, Caller: caller})
	}
	return e
}

func event(file string) string {
	return `{"hook_event_name":"PostToolUse","tool_name":"Write","cwd":"/x","tool_input":{"file_path":"` + file + `"}}`
}

// TestHookRun: a memory file Claude Code wrote is stored as claude-code
// unless the user named a caller; locked, its path waits on the pending
// list, and so does a turn that names its transcript, while one that does
// not is dropped with an error; what is not a memory file, not JSON, or
// has no vault to wait for is skipped and says why.
func TestHookRun(t *testing.T) {
	e := testEnv(t)
	path, _, _ := testVault(t)
	mem := writeFile(t, filepath.Join(memDir(e), "notes.md"), "- We decided to deploy on Thursdays.\n")
	var opened []string

	h := hookFor(t, Hook{In: strings.NewReader(event(mem)), Env: e, Caller: "cli"}, path, true, &opened)
	rep, err := h.Run()
	if err != nil || rep.Stored != 1 || len(opened) != 1 || opened[0] != DefaultCaller {
		t.Fatalf("unlocked file: %+v %v, opened as %v", rep, err, opened)
	}
	h.In, h.CallerSet = strings.NewReader(event(mem)), true
	if rep, err := h.Run(); err != nil || rep.Stored != 1 || opened[1] != "cli" { // into cli's own namespace
		t.Fatalf("again, as the named caller: %+v %v, opened as %v", rep, err, opened)
	}

	locked := hookFor(t, Hook{In: strings.NewReader(event(mem)), Env: e, Caller: "cli"}, path, false, &opened)
	if rep, err := locked.Run(); err != nil || !rep.Pending {
		t.Fatalf("locked file: %+v %v", rep, err)
	}
	locked.In = strings.NewReader(`{"assistant":"Shall I note that?","user":"My name is Priya and I prefer tea.","transcript_path":"/t/s.jsonl","turn_id":"u1"}`)
	if rep, err := locked.Run(); err != nil || !rep.Pending {
		t.Fatalf("locked turn: %+v %v", rep, err)
	}
	files, _ := Pending(path)
	if len(files) != 2 || files[0].Path != mem || files[0].Caller != DefaultCaller || files[1].Caller != "cli" || files[1].Turn != "u1" {
		t.Fatalf("pending list: %+v", files)
	}
	if len(opened) != 2 {
		t.Fatalf("a locked capture opened the vault: %v", opened)
	}
	locked.In = strings.NewReader(`{"user":"My name is Priya and I prefer tea."}`)
	if rep, err := locked.Run(); err == nil || rep.Skipped != "the vault is locked" {
		t.Fatalf("locked turn without a transcript: %+v %v", rep, err)
	}

	for in, want := range map[string]string{
		event(filepath.Join(e.Home, "notes.md")): "not a memory file",
		`["not", "an object"]`:                   "input is not a JSON object",
		`{"user":"ok"}`:                          "nothing to store",
	} {
		h.In = strings.NewReader(in)
		if rep, _ := h.Run(); rep.Skipped != want || rep.Stored != 0 {
			t.Errorf("%s: %+v, want skipped %q", in, rep, want)
		}
	}

	none := hookFor(t, Hook{In: strings.NewReader(event(mem)), Env: e}, filepath.Join(t.TempDir(), "none.vault"), false, &opened)
	if rep, err := none.Run(); err == nil || rep.Skipped != "no vault" || !strings.Contains(err.Error(), "compartment init") {
		t.Fatalf("no vault: %+v %v", rep, err)
	}
	if _, err := os.Stat(PendingPath(none.Vault)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a pending list was made beside no vault: %v", err)
	}
}

// TestHookRunBudget: a capture that outlasts its budget is abandoned, so
// the hook returns in time whatever the vault does.
func TestHookRunBudget(t *testing.T) {
	e := testEnv(t)
	mem := writeFile(t, filepath.Join(memDir(e), "notes.md"), "- We decided to deploy on Thursdays.\n")
	release := make(chan struct{})
	defer close(release)
	h := Hook{In: strings.NewReader(event(mem)), Env: e, Budget: 50 * time.Millisecond,
		Credential: func() (vaultfmt.Unlock, bool) { return vaultfmt.Unlock{}, true },
		Open: func(vaultfmt.Unlock, string) (*vault.Vault, error) {
			<-release
			return nil, errors.New("released")
		}}
	start := time.Now()
	if _, err := h.Run(); !errors.Is(err, ErrAbandoned) || time.Since(start) > 5*time.Second {
		t.Fatalf("slow capture: %v after %s", err, time.Since(start))
	}
}

// TestImportRun: every memory file is read, a link is skipped with its
// reason, a dry run asks for no key and stores nothing, and a run stores
// each claim once, as claude-code unless a caller was named: the second
// run finds them all in the vault.
func TestImportRun(t *testing.T) {
	e := testEnv(t)
	path, _, _ := testVault(t)
	writeFile(t, filepath.Join(memDir(e), "a.md"), "- We decided to deploy on Thursdays.\n- Staging listens on port 5433.\n")
	proj := filepath.Join(e.Home, "work")
	writeFile(t, filepath.Join(proj, "CLAUDE.md"), "- The build uses Go 1.26.\n")
	if err := os.Symlink(filepath.Join(e.Home, "secret.txt"), filepath.Join(memDir(e), "link.md")); err != nil {
		t.Skip("no symlinks here")
	}
	writeFile(t, filepath.Join(e.Home, "secret.txt"), "- The password is hunter2.\n")
	asked := 0
	var opened []string
	im := Import{Env: e, Dirs: []string{proj}, Caller: "cli",
		Credential: func() (vaultfmt.Unlock, error) {
			asked++
			return vaultfmt.Unlock{Passphrase: []byte(testPass)}, nil
		},
		Open: func(u vaultfmt.Unlock, caller string) (*vault.Vault, error) {
			opened = append(opened, caller)
			return vault.Open(path, vault.Options{Unlock: u, Caller: caller})
		}}
	dry := im
	dry.DryRun = true
	rep, err := dry.Run()
	if err != nil || rep.Files != 2 || rep.Claims != 3 || rep.Stored != 0 || asked != 0 || len(rep.Read) != 2 {
		t.Fatalf("dry run: %+v %v (asked %d)", rep, err, asked)
	}
	if len(rep.Skipped) != 1 || !strings.HasSuffix(rep.Skipped[0].Path, "link.md") {
		t.Fatalf("skipped: %+v", rep.Skipped)
	}
	rep, err = im.Run()
	if err != nil || rep.Stored != 3 || rep.Duplicates != 0 || asked != 1 || opened[0] != DefaultCaller {
		t.Fatalf("import: %+v %v (asked %d, opened as %v)", rep, err, asked, opened)
	}
	if rep, err = im.Run(); err != nil || rep.Stored != 0 || rep.Duplicates != 3 {
		t.Fatalf("again: %+v %v", rep, err)
	}
	locked := errors.New("locked")
	im.Credential = func() (vaultfmt.Unlock, error) { return vaultfmt.Unlock{}, locked }
	im.CallerSet = true
	if _, err := im.Run(); !errors.Is(err, locked) {
		t.Fatalf("without a key: %v", err)
	}
}

// TestStatus: the hook's state names the settings file, the installed
// command and what waits on the pending list.
func TestStatus(t *testing.T) {
	e := testEnv(t)
	path, _, _ := testVault(t)
	st, err := Status(e, path, false)
	if err != nil || st.Installed || st.Pending != 0 || st.Settings != integrate.ClaudeSettings(e) || st.PendingList != PendingPath(path) {
		t.Fatalf("nothing installed: %+v %v", st, err)
	}
	ist, _ := integrate.LoadState(e)
	if _, err := integrate.InstallHook(e, ist, "compartment hook capture", false); err != nil {
		t.Fatal(err)
	}
	mem := writeFile(t, filepath.Join(memDir(e), "a.md"), "- We deploy on Thursdays.\n")
	if err := AddPending(path, mem, DefaultCaller, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err = Status(e, path, true)
	if err != nil || !st.Installed || len(st.Commands) != 1 || st.Commands[0] != "compartment hook capture" || !st.VaultUnlocked ||
		st.Pending != 1 || st.Waiting[0].Path != mem {
		t.Fatalf("installed, one waiting: %+v %v", st, err)
	}
}
