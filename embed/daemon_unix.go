//go:build unix

package embed

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// daemonSupported: on Unix the model is shared through the daemon's
// socket, guarded by the kernel's peer credentials.
const daemonSupported = true

// fileOwner is the uid that owns the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// tryLockExclusive takes flock's exclusive lock on f without waiting;
// held reports that another process has it.
func tryLockExclusive(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// detach starts cmd in its own session, with no controlling terminal, so
// it outlives the process that started it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
