package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/vaultfmt"
)

// Options configure [Open] and [Create].
type Options struct {
	Unlock  vaultfmt.Unlock
	Caller  string        // who is calling; "" means "user"
	Encoder embed.Encoder // nil: no semantic channel (literal search only)
	Now     func() time.Time
	// KDF overrides the Argon2id parameters of a new vault's key slot
	// (tests use small ones); zero means vaultfmt.DefaultKDF.
	KDF vaultfmt.KDFParams
	// Repin opens a vault pinned to another model than Encoder (for
	// reindex, which re-embeds and re-pins it).
	Repin bool
	// ReadOnly refuses every write with ErrReadOnly, the expiry sweep and
	// the first model pin included (the dashboard opens vaults this way).
	ReadOnly bool
	// StateDir is where this machine remembers the newest state it has
	// seen of each vault, to refuse an older copy (rollback); "" turns the
	// check off. AcceptRollback takes the file as it is, once, and makes
	// it the newest state (restoring a backup on purpose).
	StateDir       string
	AcceptRollback bool
}

// Vault is an open vault: every record in RAM, indexed, and the file it came
// from. Methods are safe for concurrent use.
type Vault struct {
	mu     sync.Mutex
	path   string
	file   *vaultfmt.Vault
	cfg    *Config
	caller string
	enc    embed.Encoder
	// model is the first 8 bytes of the SHA-256 of enc's model (zero
	// without one), read once: a record's vectors count when they carry
	// it, and an open asks for every record.
	model [8]byte
	now   func() time.Time
	st    *state
	// readOnly refuses writes (Options.ReadOnly).
	readOnly bool
	guard    rollbackGuard
	// sync is told of this vault's own writes before they reach the file
	// (see sync.go); merging is set while a sync merge writes.
	sync    SyncObserver
	merging bool
	// building is set while a compaction started after a write runs
	// (compaction.go); buildDone is closed when it ends, buildErr is its
	// error.
	building  bool
	buildDone chan struct{}
	buildErr  error
	// importing is set while [Vault.Import] runs: its batches leave the
	// timed checkpoint to the import's end (see [Vault.checkpointAfter]).
	importing bool
}

// Create makes a new vault at path with a passphrase slot (and a keyfile
// factor when opts.Unlock.Keyfile is set) and returns it open. It refuses
// to overwrite an existing vault.
func Create(path string, opts Options) (*Vault, error) {
	if len(opts.Unlock.Passphrase) == 0 {
		return nil, invalidf("a passphrase is required")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create vault %s: %w", path, err)
	}
	v, err := newVault(path, opts)
	if err != nil {
		return nil, err
	}
	kdf := opts.KDF
	if kdf == (vaultfmt.KDFParams{}) {
		kdf = vaultfmt.DefaultKDF
	}
	slot := vaultfmt.SlotSpec{Kind: vaultfmt.SlotPassphrase, Passphrase: opts.Unlock.Passphrase, KDF: kdf}
	if len(opts.Unlock.Keyfile) > 0 {
		slot.Kind, slot.Keyfile = vaultfmt.SlotPassphraseKeyfile, opts.Unlock.Keyfile
	}
	copts := vaultfmt.CreateOptions{Slot: slot, Now: v.now()}
	if v.enc != nil {
		copts.Pin = pinOf(v.enc.Info())
	}
	f, err := vaultfmt.Create(path, copts, v.st)
	if err != nil {
		return nil, fmt.Errorf("create vault %s: %w", path, err)
	}
	v.file = f
	if err := v.st.settle(); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := os.Stat(ConfigPath(path)); errors.Is(err, os.ErrNotExist) {
		if err := v.cfg.Save(path); err != nil {
			f.Close()
			return nil, err
		}
	}
	return v, nil
}

// Open unlocks the vault at path and loads it into RAM.
func Open(path string, opts Options) (*Vault, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("open vault %s: no vault here: create one with `compartment init`", path)
		}
		return nil, fmt.Errorf("open vault %s: %w", path, err)
	}
	v, err := newVault(path, opts)
	if err != nil {
		return nil, err
	}
	defer relaxGC()()
	f, err := vaultfmt.Open(path, opts.Unlock, v.st)
	if err != nil {
		if errors.Is(err, vaultfmt.ErrWrongPassphrase) {
			time.Sleep(UnlockDelay())
		}
		return nil, fmt.Errorf("open vault %s: %w", path, err)
	}
	v.file = f
	if err := v.st.settle(); err != nil {
		f.Close()
		return nil, fmt.Errorf("open vault %s: index: %w", path, err)
	}
	if err := v.adoptPin(opts.Repin); err != nil {
		f.Close()
		return nil, err
	}
	if err := v.checkRollback(false); err != nil {
		f.Close()
		return nil, fmt.Errorf("open vault %s: %w", path, err)
	}
	return v, nil
}

func newVault(path string, opts Options) (*Vault, error) {
	cfg, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	caller := opts.Caller
	if caller == "" {
		caller = "user"
	}
	now := opts.Now
	if now == nil {
		now = func() time.Time { return time.Now().UTC() }
	}
	if opts.Encoder != nil {
		if err := embed.CheckCalibrated(opts.Encoder.Info()); err != nil {
			return nil, err
		}
	}
	v := &Vault{path: path, cfg: cfg, caller: caller, enc: opts.Encoder, now: now, readOnly: opts.ReadOnly,
		guard: rollbackGuard{dir: opts.StateDir, accept: opts.AcceptRollback}}
	if v.enc != nil {
		sha := v.enc.Info().SHA256
		copy(v.model[:], sha[:8])
	}
	v.st = newState(v)
	return v, nil
}

// adoptPin refuses a model other than the one the vault's vectors came
// from. A vault with no pin yet (made before any model was loaded) is pinned
// to the loaded model; its records gain vectors with `reindex`.
func (v *Vault) adoptPin(repin bool) error {
	pin := v.file.Header().Pin
	if v.enc == nil || repin {
		return nil
	}
	info := v.enc.Info()
	if pin.Name == "" {
		if v.readOnly {
			return nil // pinned by the first process that may write
		}
		if err := v.file.SetPin(pinOf(info)); err != nil {
			return fmt.Errorf("open vault %s: record the model pin: %w", v.path, err)
		}
		return nil
	}
	if info.SHA256 != pin.SHA256 {
		return fmt.Errorf("open vault %s: its vectors come from model %s (sha256 %x), but %s (sha256 %x) is loaded: run `compartment reindex --re-embed` to re-embed with the new model, or install the pinned one",
			v.path, pin.Name, pin.SHA256[:6], info.Name, info.SHA256[:6])
	}
	return nil
}

func pinOf(info embed.ModelInfo) vaultfmt.ModelPin {
	return vaultfmt.ModelPin{Name: info.Name, SHA256: info.SHA256, Dim: uint16(info.Dim)}
}

// Path is the vault file.
func (v *Vault) Path() string { return v.path }

// Caller is who this handle acts for.
func (v *Vault) Caller() string { return v.caller }

// Config returns the settings and grants in force.
func (v *Vault) Config() *Config { return v.cfg }

// File exposes the container (for status, verify, rekey, sessions).
func (v *Vault) File() *vaultfmt.Vault { return v.file }

// Close releases the file and drops the key material.
func (v *Vault) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.waitBuild()
	if v.file == nil {
		return nil
	}
	v.flushSeen()
	if !v.readOnly && !v.file.ReadOnly() && v.st.needsCheckpoint(v.file.JournalFrames()) {
		// Best effort: the journal is safe either way, and the next
		// writer checkpoints instead.
		_ = v.file.Compact()
	}
	err := v.file.Close()
	v.file = nil
	v.st.index.engine.Close()
	return err
}

// refresh catches up with other processes' writes; the caller holds v.mu.
func (v *Vault) refresh() error {
	if v.file == nil {
		return ErrLocked
	}
	if err := v.file.Refresh(); err != nil {
		return err
	}
	if err := v.st.settle(); err != nil {
		return err
	}
	return v.checkRollback(false)
}

// update runs build under the writer lock, after catching up with other
// writers, appends the changes it returns (one fsync for all) and applies
// them here. The caller holds v.mu.
func (v *Vault) update(build func() ([]vaultfmt.Change, error)) error {
	if v.file == nil {
		return ErrLocked
	}
	if v.readOnly {
		return fmt.Errorf("write vault %s: %w", v.path, ErrReadOnly)
	}
	var changes []vaultfmt.Change
	err := v.file.Update(func() ([]vaultfmt.Change, error) {
		var err error
		changes, err = build()
		if err == nil {
			err = v.tellSync(changes)
		}
		return changes, err
	})
	if err != nil {
		if errors.Is(err, ErrInvalid) || errors.Is(err, ErrDenied) {
			return err
		}
		return fmt.Errorf("write vault %s: %w (nothing was stored)", v.path, err)
	}
	if err := v.st.settle(); err != nil {
		return err
	}
	for _, c := range changes {
		if err := v.st.Apply(c); err != nil {
			return err
		}
	}
	if v.file.NeedsCompaction() || (!v.importing && v.st.checkpointDue(v.file.JournalFrames(), v.now())) {
		if err := v.compactSoon(); err != nil {
			return fmt.Errorf("compact vault %s: %w (your data is safe in the journal)", v.path, err)
		}
	}
	return v.checkRollback(true)
}

// UnlockDelay is the fixed pause before a wrong passphrase is reported, to
// slow guessing. COMPARTMENT_UNLOCK_DELAY_MS changes it (the test suite
// shortens it); it cannot be set below 100 ms.
func UnlockDelay() time.Duration {
	d := 5 * time.Second
	if ms, err := strconv.Atoi(os.Getenv("COMPARTMENT_UNLOCK_DELAY_MS")); err == nil {
		d = max(time.Duration(ms)*time.Millisecond, 100*time.Millisecond)
	}
	return d
}

// openGCPercent is the GOGC an open runs at. An open builds the whole live
// heap from nothing, and collecting each time it grows by the usual
// percentage (the MCP server runs at 25) scans it again and again: at
// 100,000 memories that was about a third of the open's CPU. Go's default
// keeps the peak near twice the live heap (400 cost a server 60% more
// peak resident memory at 100,000 memories). The garbage
// an open leaves is handed back by the caller afterwards (the server
// frees it at once).
const openGCPercent = 100

// relaxGC raises GOGC to openGCPercent, unless it is higher or off, and
// returns the function that puts it back.
func relaxGC() func() {
	prev := debug.SetGCPercent(openGCPercent)
	if prev < 0 || prev > openGCPercent {
		debug.SetGCPercent(prev)
	}
	return func() { debug.SetGCPercent(prev) }
}
