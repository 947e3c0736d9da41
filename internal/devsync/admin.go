package devsync

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// SetupOptions are what `sync init` and `sync join` need.
type SetupOptions struct {
	// Passphrase (and Keyfile, for two-factor) seal the folder key
	// (init) or open it (join).
	Passphrase, Keyfile []byte
	// KDF: the Argon2id parameters of a new folder key (tests use small
	// ones); zero means the vault's own (its first key slot's), else
	// vaultfmt.DefaultKDF.
	KDF vaultfmt.KDFParams
	// Name is this device's name in the device list ("" = host name).
	Name string
	Options
}

// Init makes dir a new sync folder with v as its first device, and logs
// everything v holds.
func Init(v *vault.Vault, dir string, o SetupOptions) (*Syncer, Report, error) {
	dir, err := prepare(v, dir)
	if err != nil {
		return nil, Report{}, err
	}
	if _, err := os.Stat(filepath.Join(dir, keyFileName)); err == nil {
		return nil, Report{}, fmt.Errorf("devsync: %s is a sync folder already: run `compartment sync join %s` instead", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, Report{}, fmt.Errorf("devsync: make the sync folder: %w", err)
	}
	kdf := o.KDF
	if slots := v.File().Header().Slots; kdf == (vaultfmt.KDFParams{}) && len(slots) > 0 {
		kdf = slots[0].KDF
	}
	kf, key, err := newKeyFile(o.Passphrase, o.Keyfile, kdf, time.Now())
	if err != nil {
		return nil, Report{}, err
	}
	if err := writeAtomic(filepath.Join(dir, keyFileName), filepath.Join(dir, "."+keyFileName+".tmp"), kf.encode()); err != nil {
		return nil, Report{}, fmt.Errorf("devsync: write %s: %w", keyFileName, err)
	}
	return setUp(v, dir, kf.folderID, key, o)
}

// Join adds v to the sync folder dir as a new device: it opens the folder
// key with the passphrase (and keyfile), keeps everything v holds and
// merges it with what the folder holds.
func Join(v *vault.Vault, dir string, o SetupOptions) (*Syncer, Report, error) {
	dir, err := prepare(v, dir)
	if err != nil {
		return nil, Report{}, err
	}
	kf, err := readKeyFile(dir)
	if err != nil {
		return nil, Report{}, err
	}
	key, err := kf.unwrap(o.Passphrase, o.Keyfile)
	if err != nil {
		if errors.Is(err, ErrWrongPassphrase) {
			time.Sleep(vault.UnlockDelay())
		}
		return nil, Report{}, err
	}
	return setUp(v, dir, kf.folderID, key, o)
}

func prepare(v *vault.Vault, dir string) (string, error) {
	if _, err := os.Stat(SidecarPath(v.Path())); err == nil {
		return "", fmt.Errorf("devsync: this vault is synced already (see `compartment sync status`): run `compartment sync leave` first")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("devsync: %w", err)
	}
	vdir, _ := filepath.Abs(filepath.Dir(v.Path()))
	if abs == vdir {
		return "", fmt.Errorf("devsync: the sync folder must not be the vault's own directory %s: use an empty folder the sync engine shares", vdir)
	}
	return abs, nil
}

func setUp(v *vault.Vault, dir string, folderID [16]byte, key []byte, o SetupOptions) (*Syncer, Report, error) {
	dev, err := randomID()
	if err != nil {
		return nil, Report{}, err
	}
	name := o.Name
	if name == "" {
		name, _ = os.Hostname()
	}
	k, err := deriveFolderKeys(key, folderID)
	if err != nil {
		return nil, Report{}, err
	}
	if err := writeDevice(dir, k, &Device{ID: dev, Name: name, Joined: time.Now().UTC()}); err != nil {
		return nil, Report{}, err
	}
	side := &sidecar{Version: sidecarVersion, Folder: dir, FolderID: hex.EncodeToString(folderID[:]),
		DeviceID: hex.EncodeToString(dev[:]), DeviceName: name, Seen: map[string]seenLog{},
		folderID: folderID, deviceID: dev}
	master, vid := v.File().MasterKey(), v.File().Header().VaultID
	if err := side.sealKey(key, master, vid); err != nil {
		return nil, Report{}, err
	}
	if err := side.save(v.Path(), master, vid); err != nil {
		return nil, Report{}, err
	}
	s, err := newSyncerWith(v, o.Options, side, key)
	if err != nil {
		return nil, Report{}, err
	}
	s.observe()
	rep, err := s.Merge()
	return s, rep, err
}

// Leave stops syncing v: its device entry is marked as left, its log stays
// in the folder (the other devices keep what it wrote), and v keeps every
// memory it has.
func (s *Syncer) Leave() error {
	s.Detach()
	s.mu.Lock()
	defer s.mu.Unlock()
	devs, _, err := readRoster(s.dir, s.keys)
	if err == nil {
		d := devs[s.id]
		if d == nil {
			d = &Device{ID: s.id, Name: s.side.DeviceName, Joined: time.Now().UTC()}
		}
		d.Left = time.Now().UTC()
		err = writeDevice(s.dir, s.keys, d)
	}
	if rmErr := os.Remove(SidecarPath(s.v.Path())); rmErr != nil && !os.IsNotExist(rmErr) {
		return fmt.Errorf("devsync: remove %s: %w", SidecarPath(s.v.Path()), rmErr)
	}
	if err != nil {
		return fmt.Errorf("devsync: this vault no longer syncs, but its entry in %s could not be marked as left: %w", s.dir, err)
	}
	return nil
}

// DeviceStatus is one device as `sync status` shows it.
type DeviceStatus struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	This       bool      `json:"this_device"`
	Joined     time.Time `json:"joined"`
	Left       time.Time `json:"left,omitzero"`
	Operations uint64    `json:"operations"` // whole frames in its log
	Generation uint64    `json:"generation,omitempty"`
	LastOp     time.Time `json:"last_operation,omitzero"` // clock of its newest operation
	Copying    bool      `json:"copying,omitempty"`       // the engine is still copying its log
	NoLog      bool      `json:"no_log,omitempty"`        // no log from it has arrived
}

// Status is `sync status`.
type Status struct {
	Folder     string         `json:"folder"`
	FolderID   string         `json:"folder_id"`
	Device     string         `json:"device_id"`
	DeviceName string         `json:"device_name"`
	Devices    []DeviceStatus `json:"devices"`
	LastMerge  Report         `json:"last_merge"`
}

// Status reads the folder as it is now (after the merge Attach did).
func (s *Syncer) Status() (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Folder: s.dir, FolderID: s.side.FolderID, Device: s.side.DeviceID, DeviceName: s.side.DeviceName, LastMerge: s.last}
	roster, _, err := readRoster(s.dir, s.keys)
	if err != nil {
		return st, s.unreachable(err)
	}
	for id, d := range roster {
		ds := DeviceStatus{ID: hex.EncodeToString(id[:]), Name: d.Name, This: id == s.id, Joined: d.Joined, Left: d.Left}
		var l *logState
		if id == s.id {
			l = s.own.st
		} else if c, ok := s.cache[id]; ok {
			l = c.st
		} else if st2, err := readLog(logPath(s.dir, id), s.keys, id); err == nil {
			l = st2
		}
		if l == nil {
			ds.NoLog = true
		} else {
			ds.Operations, ds.Generation, ds.Copying = l.frames(), l.generation, l.partial
			if l.frames() > 0 {
				ds.LastOp = l.lastClock.Time()
			}
		}
		st.Devices = append(st.Devices, ds)
	}
	slices.SortFunc(st.Devices, func(a, b DeviceStatus) int {
		if a.This != b.This {
			if a.This {
				return -1
			}
			return 1
		}
		return cmpStr(a.Name+a.ID, b.Name+b.ID)
	})
	return st, nil
}
