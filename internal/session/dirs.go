package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// Environment variables read by this package. The last three are test
// hooks: they let a test suite simulate a reboot and shorten the idle
// timeout without touching the real machine.
const (
	// EnvSessionDir moves the directory that holds the credentials, lock
	// stamps and last-use files (default: the boot secret's directory).
	EnvSessionDir = "COMPARTMENT_SESSION_DIR"
	// EnvBootSecretDir (test hook) moves the per-boot secret out of tmpfs;
	// the RAM-only check is skipped for it.
	EnvBootSecretDir = "COMPARTMENT_BOOT_SECRET_DIR"
	// EnvBootIDFile (test hook) names a file read instead of
	// /proc/sys/kernel/random/boot_id.
	EnvBootIDFile = "COMPARTMENT_BOOT_ID_FILE"
	// EnvAutoLockSeconds (test hook) replaces the auto_lock_minutes
	// setting with a number of seconds (0 = never).
	EnvAutoLockSeconds = "COMPARTMENT_AUTO_LOCK_SECONDS"
)

// procBootID is the kernel's random id of this boot.
const procBootID = "/proc/sys/kernel/random/boot_id"

// ramDirCandidates are the places tried, in order, for the per-boot
// secret: the first one on a RAM-backed file system wins. /dev/shm comes
// first because it exists for every process of the user, whether or not a
// login session set XDG_RUNTIME_DIR (cron jobs, ssh without pam_systemd,
// agents started by a desktop app all see the same path).
func ramDirCandidates() []string {
	uid := strconv.Itoa(os.Getuid())
	dirs := []string{"/dev/shm/compartment-" + uid, "/run/user/" + uid + "/compartment"}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dirs = append(dirs, filepath.Join(x, "compartment"))
	}
	return dirs
}

// ErrNoRAMDir says there is nowhere to keep a secret only in RAM, so this
// machine has no unlock sessions.
var ErrNoRAMDir = errors.New("session: no RAM-backed directory (tmpfs) for the per-boot secret: tried /dev/shm and /run/user; set COMPARTMENT_PASSPHRASE for this shell instead")

// bootSecretDir returns the private, RAM-backed directory that holds the
// per-boot secret, creating it.
func bootSecretDir() (string, error) {
	if d := os.Getenv(EnvBootSecretDir); d != "" {
		return d, ensurePrivateDir(d, true)
	}
	if err := noBootSessions(runtime.GOOS); err != nil {
		return "", err
	}
	for _, d := range ramDirCandidates() {
		parent := filepath.Dir(d)
		if !onRAM(parent) {
			continue
		}
		if err := ensurePrivateDir(d, false); err != nil {
			return "", err
		}
		return d, nil
	}
	return "", ErrNoRAMDir
}

// sessionDir returns the private directory for credentials and the shared
// lock and last-use files, creating it.
func sessionDir() (string, error) {
	if d := os.Getenv(EnvSessionDir); d != "" {
		return d, ensurePrivateDir(d, true)
	}
	return bootSecretDir()
}

// ensurePrivateDir makes dir (mode 0700) and checks that it is a real
// directory owned by this user and closed to everyone else. A directory in
// a world-writable place such as /dev/shm could have been made by another
// user to read what we put there, so ownership is checked, not assumed.
func ensurePrivateDir(dir string, parents bool) error {
	var err error
	if parents {
		err = os.MkdirAll(dir, 0o700)
	} else {
		err = os.Mkdir(dir, 0o700)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("session: create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("session: %s is not a directory (a symlink or file is there): remove it", dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("session: %s belongs to uid %d, not to you: refusing to keep an unlock credential there", dir, uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("session: make %s private: %w", dir, err)
		}
	}
	return nil
}
