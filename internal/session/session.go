package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// Sentinel errors.
var (
	// ErrNoSession: the vault has no usable unlock credential here.
	ErrNoSession = errors.New("session: no unlock session for this vault")
	// ErrAutoLocked: the session had been idle past auto_lock_minutes and
	// was locked just now.
	ErrAutoLocked = errors.New("session: the vault auto-locked after being idle")
)

// Session is the unlock state of one vault for this user on this boot:
// the credential, the lock stamp and the last-use file in the session
// directory. It is cheap to make; methods are safe for concurrent use.
type Session struct {
	path  string // canonical vault path: absolute, symlinks resolved
	given string // the absolute path as given, for the config beside it
	dir   string
	stem  string // file name stem, from the path

	mu        sync.Mutex
	cfgStamp  os.FileInfo // the config file the cached timeout came from
	cfgLoaded bool
	timeout   time.Duration
}

// For returns the session of the vault at vaultPath, which must exist. It
// creates the private session directory if needed.
func For(vaultPath string) (*Session, error) {
	abs, err := filepath.Abs(vaultPath)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	dir, err := sessionDir()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(canon))
	return &Session{path: canon, given: abs, dir: dir, stem: "v-" + hex.EncodeToString(sum[:16])}, nil
}

// Path is the canonical path of the vault.
func (s *Session) Path() string { return s.path }

// CredentialPath is where the vault's unlock credential lives.
func (s *Session) CredentialPath() string { return filepath.Join(s.dir, s.stem+".cred") }

func (s *Session) stampPath() string { return filepath.Join(s.dir, s.stem+".locked") }
func (s *Session) usedPath() string  { return filepath.Join(s.dir, s.stem+".used") }

// binding collects what a credential of this vault is bound to, and the
// boot secret that seals it.
func (s *Session) binding() (binding, []byte, error) {
	boot, err := bootID()
	if err != nil {
		return binding{}, nil, err
	}
	bdir, err := bootSecretDir()
	if err != nil {
		return binding{}, nil, err
	}
	secret, err := bootSecret(bdir, boot)
	if err != nil {
		return binding{}, nil, err
	}
	hdr, err := vaultfmt.ReadHeader(s.path)
	if err != nil {
		return binding{}, nil, fmt.Errorf("session: %w", err)
	}
	return binding{bootID: boot, uid: uint32(os.Getuid()), vaultID: hdr.VaultID, path: s.path}, secret, nil
}

// Create seals master into this vault's credential, replacing any, and
// starts the idle clock. With once, the first process to use the
// credential deletes it, so it lets exactly one process in.
func (s *Session) Create(master []byte, once bool) error {
	b, secret, err := s.binding()
	if err != nil {
		return err
	}
	data, err := sealCredential(secret, b, credential{master: master, once: once, created: time.Now()})
	if err != nil {
		return err
	}
	if err := writeAtomic(s.CredentialPath(), data); err != nil {
		return fmt.Errorf("session: write credential: %w", err)
	}
	s.touch(time.Now())
	return s.allowEnvironment() // an unlock undoes the lock's marker
}

// MasterKey returns the master key from this vault's credential, and a
// [Hold] that later tells whether the key must be dropped. A session idle
// past the auto-lock timeout is locked here instead (ErrAutoLocked). A
// once credential is claimed: deleted, so no other process gets it. A
// credential that does not open (another boot, copied from elsewhere) is
// deleted and reported as ErrNoSession. Every success counts as use.
func (s *Session) MasterKey() ([]byte, *Hold, error) {
	h := s.Hold()
	data, fi, err := readFileInfo(s.CredentialPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ErrNoSession
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session: read credential: %w", err)
	}
	now := time.Now()
	if s.expired(now, fi) {
		s.Lock()
		return nil, nil, ErrAutoLocked
	}
	if len(data) > 8 && data[8]&flagOnce != 0 {
		if data, err = s.claim(); err != nil {
			return nil, nil, err
		}
		fi = nil // nothing left to watch
	}
	c, err := s.open(data, fi)
	if err != nil {
		return nil, nil, err
	}
	h.cred = fi
	s.touch(now)
	return c.master, h, nil
}

// open authenticates a credential's bytes; one that does not open is
// removed (when the file is still the one read) and reported as
// ErrNoSession.
func (s *Session) open(data []byte, fi os.FileInfo) (credential, error) {
	b, secret, err := s.binding()
	if err != nil {
		return credential{}, err
	}
	c, err := openCredential(secret, b, data)
	if errors.Is(err, errBadCredential) {
		if now, serr := os.Stat(s.CredentialPath()); serr == nil && fi != nil && sameFile(now, fi) {
			os.Remove(s.CredentialPath())
		}
		return credential{}, fmt.Errorf("%w (%v)", ErrNoSession, err)
	}
	return c, err
}

// claim takes a once credential away from every other process: the rename
// succeeds for exactly one of them.
func (s *Session) claim() ([]byte, error) {
	var tag [8]byte
	rand.Read(tag[:])
	claimed := s.CredentialPath() + ".claim-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(tag[:])
	if err := os.Rename(s.CredentialPath(), claimed); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoSession
		}
		return nil, fmt.Errorf("session: claim credential: %w", err)
	}
	defer os.Remove(claimed)
	data, err := os.ReadFile(claimed)
	if err != nil {
		return nil, fmt.Errorf("session: claim credential: %w", err)
	}
	return data, nil
}

// Lock deletes the credential, writes the environment marker and moves
// the lock stamp, so every process that holds the key drops it before its
// next call and none reads COMPARTMENT_PASSPHRASE again until an explicit
// unlock. The credential and the marker go first: a process that notices
// the stamp and looks again for a key must find neither the old
// credential nor the environment open.
func (s *Session) Lock() error {
	err := os.Remove(s.CredentialPath())
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if merr := writeAtomic(s.markerPath(), nil); merr != nil && err == nil {
		err = merr
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	if serr := writeAtomic(s.stampPath(), nonce[:]); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("session: lock: %w", err)
	}
	return nil
}

// State describes the session without using it.
type State struct {
	Unlocked bool          `json:"unlocked"`
	Once     bool          `json:"once,omitempty"`
	Created  time.Time     `json:"created,omitzero"`
	LastUse  time.Time     `json:"last_use,omitzero"`
	AutoLock time.Duration `json:"auto_lock_ns"` // 0 = never
}

// State reports whether a usable credential exists, without claiming,
// touching or locking anything.
func (s *Session) State() State {
	st := State{AutoLock: s.autoLock()}
	data, fi, err := readFileInfo(s.CredentialPath())
	if err != nil {
		return st
	}
	st.LastUse = s.lastUse(fi)
	if s.expired(time.Now(), fi) {
		return st
	}
	b, secret, err := s.binding()
	if err != nil {
		return st
	}
	c, err := openCredential(secret, b, data)
	if err != nil {
		return st
	}
	wipe(c.master)
	st.Unlocked, st.Once, st.Created = true, c.once, c.created
	return st
}

// readFileInfo reads a small file and stats the very file it read.
func readFileInfo(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	return data, fi, err
}

// sameFile is os.SameFile plus the modification time, so an inode number
// reused for a new file is not mistaken for the old one.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime())
}

// Hold records what a process saw when it took a key, so it can tell before
// each later call whether the vault was locked since.
type Hold struct {
	s     *Session
	stamp os.FileInfo // the lock stamp then; nil if there was none
	cred  os.FileInfo // the credential the key came from; nil if not watched
}

// Hold starts watching for a lock from now on. Use it when the key came
// from somewhere other than the credential (a passphrase).
func (s *Session) Hold() *Hold {
	h := &Hold{s: s}
	if fi, err := os.Stat(s.stampPath()); err == nil {
		h.stamp = fi
	}
	return h
}

// Current reports whether the key may still be used: nobody locked the
// vault since the hold began, and the credential it came from (if any) is
// still there. It costs one or two stat calls.
func (h *Hold) Current() bool {
	if h == nil {
		return true
	}
	fi, err := os.Stat(h.s.stampPath())
	switch {
	case h.stamp == nil && err == nil:
		return false
	case h.stamp != nil && (err != nil || !sameFile(fi, h.stamp)):
		return false
	}
	if h.cred != nil {
		fi, err := os.Stat(h.s.CredentialPath())
		if err != nil || !sameFile(fi, h.cred) {
			return false
		}
	}
	return true
}

// Unlock proves u against the vault and creates its unlock session (see
// [Session.Create] for once). A wrong passphrase or keyfile costs the fixed
// [vault.UnlockDelay] before the error, as every unlock does.
func (s *Session) Unlock(u vaultfmt.Unlock, once bool) error {
	f, err := vaultfmt.Open(s.path, u, nil)
	if err != nil {
		if errors.Is(err, vaultfmt.ErrWrongPassphrase) {
			time.Sleep(vault.UnlockDelay())
		}
		return fmt.Errorf("unlock %s: %w", s.given, err)
	}
	master := f.MasterKey()
	f.Close()
	defer wipe(master)
	return s.Create(master, once)
}
