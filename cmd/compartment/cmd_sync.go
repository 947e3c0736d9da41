package main

import (
	"errors"
	"fmt"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
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
	pass, err := session.OtherPassphrase(app.stdinIf(c.PassphraseStdin), fmt.Sprintf("Passphrase of the sync folder %s: ", c.Dir))
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

func syncSetUpResult(app *App, what string, s *devsync.Syncer, rep devsync.Report, mergeErr error, asJSON bool) error {
	if asJSON {
		return render.JSON(app.Stdout, api.SyncSetUp{Folder: s.Folder(), DeviceID: fmt.Sprintf("%x", s.Device()), Merge: rep, MergeError: api.ErrorText(mergeErr)})
	}
	render.SyncSetUp(app.Stdout, what, s.Folder(), s.Device(), rep)
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
		return render.JSON(app.Stdout, api.SyncStatus{Status: st, MergeError: api.ErrorText(mergeErr)})
	}
	render.SyncStatus(app.Stdout, st)
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
		if err := render.JSON(app.Stdout, api.SyncMerge{Merge: rep, MergeError: api.ErrorText(mergeErr)}); err != nil {
			return err
		}
	} else {
		render.SyncReport(app.Stdout, rep)
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
		return render.JSON(app.Stdout, api.SyncLeave{Left: folder})
	}
	render.SyncLeft(app.Stdout, folder)
	return nil
}

// attachSync connects an opened vault to its sync folder, if it has one,
// merging what arrived (devsync.AttachIfSynced): every command does this
// when it opens the vault. A merge problem is reported on stderr and does
// not stop the command.
func (app *App) attachSync(v *vault.Vault) {
	s, rep, err := devsync.AttachIfSynced(v)
	app.sync = syncState{s, rep, err}
	render.SyncAttached(app.Stderr, rep, err)
}
