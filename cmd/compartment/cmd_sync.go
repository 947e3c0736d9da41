package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/vault"
)

// SyncCmd keeps one memory on every device through a folder a file-sync
// engine (Syncthing, rsync, a network drive) moves between them.
type SyncCmd struct {
	Init   SyncInitCmd   `cmd:"" help:"Make DIR a sync folder, with this vault as its first device."`
	Join   SyncJoinCmd   `cmd:"" help:"Add this vault to the sync folder DIR (asks for its passphrase); keeps and merges what this vault holds."`
	Status SyncStatusCmd `cmd:"" help:"Devices, the last operation seen from each, what is pending."`
	Now    SyncNowCmd    `cmd:"" help:"Merge what arrived in the sync folder now."`
	Leave  SyncLeaveCmd  `cmd:"" help:"Stop syncing this vault (it keeps every memory; the others keep what it wrote)."`
}

type SyncInitCmd struct {
	Dir  string `arg:"" help:"An empty folder your sync engine shares between your devices." type:"path"`
	Name string `help:"This device's name in the device list (default: the host name)."`
	JSON bool   `help:"Print the result as JSON." name:"json"`
}

func (c *SyncInitCmd) Run(app *App) error {
	// The folder key is sealed by the vault's own passphrase (and keyfile):
	// prove it by opening the vault with it, not with a session.
	v, u, err := app.openVaultByPassphrase()
	if err != nil {
		return err
	}
	defer v.Close()
	o := devsync.SetupOptions{Passphrase: u.Passphrase, Keyfile: u.Keyfile, Name: c.Name}
	s, rep, err := devsync.Init(v, c.Dir, o)
	if err != nil && s == nil {
		return fmt.Errorf("sync init: %w", err)
	}
	return syncSetUpResult(app, "initialised", s, rep, err, c.JSON)
}

type SyncJoinCmd struct {
	Dir             string `arg:"" help:"The sync folder, as your sync engine brought it to this device." type:"path"`
	Name            string `help:"This device's name in the device list (default: the host name)."`
	PassphraseStdin bool   `help:"Read the sync folder's passphrase from stdin instead of the terminal." name:"passphrase-stdin"`
	JSON            bool   `help:"Print the result as JSON." name:"json"`
}

func (c *SyncJoinCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	pass, err := app.syncPassphrase(c.Dir, c.PassphraseStdin)
	if err != nil {
		return err
	}
	keyfile, err := app.readKeyfile()
	if err != nil {
		return err
	}
	o := devsync.SetupOptions{Passphrase: pass, Keyfile: keyfile, Name: c.Name}
	s, rep, err := devsync.Join(v, c.Dir, o)
	if err != nil && s == nil {
		switch {
		case errors.Is(err, devsync.ErrWrongPassphrase):
			return fmt.Errorf("sync join: that passphrase does not open the sync folder %s: use the passphrase given to `sync init` on the first device", c.Dir)
		case errors.Is(err, devsync.ErrKeyfileRequired):
			return fmt.Errorf("sync join: the sync folder %s needs the keyfile too: add --keyfile PATH", c.Dir)
		}
		return fmt.Errorf("sync join: %w", err)
	}
	return syncSetUpResult(app, "joined", s, rep, err, c.JSON)
}

// syncPassphrase asks for the sync folder's passphrase: stdin when asked,
// else COMPARTMENT_PASSPHRASE, else the terminal.
func (app *App) syncPassphrase(dir string, fromStdin bool) ([]byte, error) {
	if fromStdin {
		return app.readPassphraseStdin()
	}
	if env := os.Getenv("COMPARTMENT_PASSPHRASE"); env != "" {
		return []byte(env), nil
	}
	return promptPassphrase(fmt.Sprintf("Passphrase of the sync folder %s: ", dir))
}

func syncSetUpResult(app *App, what string, s *devsync.Syncer, rep devsync.Report, mergeErr error, asJSON bool) error {
	if asJSON {
		return printJSON(app.Stdout, api.SyncSetUp{Folder: s.Folder(), DeviceID: fmt.Sprintf("%x", s.Device()), Merge: rep, MergeError: api.ErrorText(mergeErr)})
	}
	fmt.Fprintf(app.Stdout, "sync folder %s %s: this device is %x\n", s.Folder(), what, s.Device())
	printReport(app.Stdout, rep)
	return syncErr(mergeErr)
}

// syncErr is a merge's error as the sync commands return it, after their
// output.
func syncErr(mergeErr error) error {
	if mergeErr != nil {
		return fmt.Errorf("sync: %w", mergeErr)
	}
	return nil
}

func printReport(w io.Writer, rep devsync.Report) {
	fmt.Fprintf(w, "merged: %d written, %d removed (%d shredded), %d operations logged, %d waiting for their memory to arrive\n",
		rep.Written, rep.Deleted, rep.Shredded, rep.Logged, rep.Pending)
	for _, c := range rep.Copying {
		fmt.Fprintf(w, "still copying: %s (read up to its last whole operation)\n", inert(c))
	}
	for _, s := range rep.Ignored {
		fmt.Fprintf(w, "ignored: %s\n", inert(s))
	}
}

// syncState is what attachSync found when the command opened the vault.
type syncState struct {
	s   *devsync.Syncer
	rep devsync.Report
	err error
}

// openSynced opens the vault (which attaches and merges) for the sync
// commands.
func (app *App) openSynced() (*vault.Vault, *devsync.Syncer, devsync.Report, error, error) {
	v, err := app.openVault()
	if err != nil {
		return nil, nil, devsync.Report{}, nil, err
	}
	st := app.sync
	if st.s == nil {
		v.Close()
		if st.err == nil || errors.Is(st.err, devsync.ErrNotSynced) {
			return nil, nil, st.rep, nil, fmt.Errorf("this vault is not synced: run `compartment sync init DIR` on the first device, `compartment sync join DIR` on the others")
		}
		return nil, nil, st.rep, nil, st.err
	}
	return v, st.s, st.rep, st.err, nil
}

type SyncStatusCmd struct {
	JSON bool `help:"Print the status as JSON." name:"json"`
}

func (c *SyncStatusCmd) Run(app *App) error {
	v, s, _, mergeErr, err := app.openSynced()
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := s.Status()
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, api.SyncStatus{Status: st, MergeError: api.ErrorText(mergeErr)})
	}
	w := app.Stdout
	fmt.Fprintf(w, "folder     %s\n", inert(st.Folder))
	fmt.Fprintf(w, "this       %s (%s)\n", inert(st.DeviceName), st.Device)
	for _, d := range st.Devices {
		var notes []string
		if d.This {
			notes = append(notes, "this device")
		}
		if !d.Left.IsZero() {
			notes = append(notes, "left "+d.Left.Format(time.DateOnly))
		}
		if d.Copying {
			notes = append(notes, "still copying")
		}
		last := "no operation yet"
		if d.NoLog {
			last = "its log has not arrived"
		} else if !d.LastOp.IsZero() {
			last = "last operation " + d.LastOp.Local().Format("2006-01-02 15:04:05")
		}
		extra := ""
		if len(notes) > 0 {
			extra = " [" + strings.Join(notes, ", ") + "]"
		}
		fmt.Fprintf(w, "device     %-16s %s  %d operations, %s%s\n", inert(d.Name), d.ID[:8], d.Operations, last, extra)
	}
	fmt.Fprintf(w, "pending    %d memories named by operations whose store has not arrived; %d logs still copying\n",
		st.LastMerge.Pending, len(st.LastMerge.Copying))
	for _, s := range st.LastMerge.Ignored {
		fmt.Fprintf(w, "ignored    %s\n", inert(s))
	}
	return syncErr(mergeErr)
}

type SyncNowCmd struct {
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *SyncNowCmd) Run(app *App) error {
	v, _, rep, mergeErr, err := app.openSynced()
	if err != nil {
		return err
	}
	defer v.Close()
	if c.JSON {
		if err := printJSON(app.Stdout, api.SyncMerge{Merge: rep, MergeError: api.ErrorText(mergeErr)}); err != nil {
			return err
		}
	} else {
		printReport(app.Stdout, rep)
	}
	return syncErr(mergeErr)
}

type SyncLeaveCmd struct {
	JSON bool `help:"Print the result as JSON." name:"json"`
}

func (c *SyncLeaveCmd) Run(app *App) error {
	v, s, _, _, err := app.openSynced()
	if err != nil {
		return err
	}
	defer v.Close()
	folder := s.Folder()
	if err := s.Leave(); err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, api.SyncLeave{Left: folder})
	}
	fmt.Fprintf(app.Stdout, "this vault no longer syncs with %s; it keeps every memory, and the other devices keep what it wrote\n", inert(folder))
	return nil
}

// attachSync connects an opened vault to its sync folder, if it has one,
// merging what arrived (devsync.AttachIfSynced): every command does this
// when it opens the vault. A merge problem is reported on stderr and does
// not stop the command.
func (app *App) attachSync(v *vault.Vault) {
	s, rep, err := devsync.AttachIfSynced(v)
	app.sync = syncState{s, rep, err}
	if err != nil {
		fmt.Fprintf(app.Stderr, "compartment: sync: %s\n", inert(err.Error()))
	} else if rep.Written+rep.Deleted > 0 {
		fmt.Fprintf(app.Stderr, "compartment: sync: merged %d memories and relations from other devices, removed %d\n", rep.Written, rep.Deleted)
	}
}

// serveSync keeps the server's vault merged with its sync folder
// (devsync.Serve).
func serveSync(v *vault.Vault, log *slog.Logger) { devsync.Serve(v, time.Second, log) }
