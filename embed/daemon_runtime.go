package embed

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables that steer the daemon.
const (
	// EnvEmbedDaemon set to "0" keeps the model in each process.
	EnvEmbedDaemon = "COMPARTMENT_EMBED_DAEMON"
	// EnvEmbedSocket overrides the daemon's socket path.
	EnvEmbedSocket = "COMPARTMENT_EMBED_SOCKET"
	// EnvEmbedIdle is how many seconds the daemon lingers after its last
	// client leaves (default 300).
	EnvEmbedIdle = "COMPARTMENT_EMBED_IDLE"
)

// DefaultDaemonIdle is how long the daemon waits for a new client after
// the last one leaves.
const DefaultDaemonIdle = 300 * time.Second

// DaemonIdle reads $COMPARTMENT_EMBED_IDLE (seconds, fractions allowed).
func DaemonIdle() time.Duration {
	if s := os.Getenv(EnvEmbedIdle); s != "" {
		if secs, err := strconv.ParseFloat(s, 64); err == nil && secs >= 0 {
			return time.Duration(secs * float64(time.Second))
		}
	}
	return DefaultDaemonIdle
}

// DaemonSocketPath is where the daemon listens: $COMPARTMENT_EMBED_SOCKET,
// else embed.sock in a private per-user runtime directory
// ($XDG_RUNTIME_DIR/compartment, else /tmp/compartment-UID).
func DaemonSocketPath() string {
	if p := os.Getenv(EnvEmbedSocket); p != "" {
		return p
	}
	return filepath.Join(runtimeDir(), "embed.sock")
}

func runtimeDir() string {
	if base := os.Getenv("XDG_RUNTIME_DIR"); base != "" {
		return filepath.Join(base, "compartment")
	}
	return filepath.Join(os.TempDir(), "compartment-"+strconv.Itoa(os.Getuid()))
}

// The daemon's companion files sit beside its socket.
func daemonLockPath(socket string) string { return socket + ".lock" }
func daemonLogPath(socket string) string  { return socket + ".log" }

// ensurePrivateDir makes dir if needed and checks nobody else can reach
// into it: it must be a real directory owned by this user with no group or
// other permissions. A directory in a shared place (/tmp) that someone else
// created first is refused, not used.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("embed: runtime dir: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("embed: runtime dir: %w", err)
	}
	uid, ok := fileOwner(st)
	switch {
	case !st.IsDir():
		return fmt.Errorf("embed: runtime dir %s is not a directory", dir)
	case !ok || uid != os.Getuid():
		return fmt.Errorf("embed: runtime dir %s belongs to another user; refusing to use it", dir)
	case st.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("embed: runtime dir %s: %w", dir, err)
		}
	}
	return nil
}

// prepareSocketDir readies the directory of a socket: the default
// runtime directory must be private; an explicit override's directory is
// created private if missing and otherwise trusted to the user, since the
// peer checks on both ends still refuse other users.
func prepareSocketDir(socket string) error {
	dir := filepath.Dir(socket)
	if os.Getenv(EnvEmbedSocket) == "" || dir == runtimeDir() {
		return ensurePrivateDir(dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("embed: socket dir: %w", err)
	}
	return nil
}

// lockDaemon takes the per-socket lock that makes one daemon per socket.
// The kernel drops it when the process dies, however it dies, which is
// what lets a new daemon replace a crashed one.
func lockDaemon(socket string) (*os.File, error) {
	f, err := os.OpenFile(daemonLockPath(socket), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("embed: daemon lock: %w", err)
	}
	if held, err := tryLockExclusive(f); err != nil || held {
		f.Close()
		if held {
			return nil, ErrDaemonRunning
		}
		return nil, fmt.Errorf("embed: daemon lock: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// ErrDaemonRunning means another daemon already holds the socket.
var ErrDaemonRunning = errors.New("embed: an embedding daemon is already running on this socket")

// sameUser checks, through the kernel's peer credentials (peerUID), that
// the process on the other end of c runs as this user: the daemon serves
// nobody else, and a client sends its text to nobody else.
func sameUser(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("embed: not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("embed: peer credentials: %w", err)
	}
	var uid int
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(fd) }); err != nil {
		return fmt.Errorf("embed: peer credentials: %w", err)
	}
	if credErr != nil {
		return fmt.Errorf("embed: peer credentials: %w", credErr)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("embed: peer runs as uid %d, not %d; refusing it", uid, os.Getuid())
	}
	return nil
}

// residentMB reads this process's resident set size from /proc.
func residentMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// ErrDaemonUnsupported means this system cannot check who is on the other
// end of the daemon's socket, so there is no shared daemon: each process
// loads the model itself (what COMPARTMENT_EMBED_DAEMON=0 asks for
// everywhere).
var ErrDaemonUnsupported = errors.New("embed: the shared embedding daemon is not available on this system (no peer credentials on its socket); each process loads the model itself, as with COMPARTMENT_EMBED_DAEMON=0")
