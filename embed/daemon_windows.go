package embed

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// daemonSupported: Windows has Unix sockets but no peer credentials to
// check who is on the other end, so nothing is shared there: every
// process loads the model itself, as with COMPARTMENT_EMBED_DAEMON=0.
const daemonSupported = false

// fileOwner is not the uid on Windows: files have ACLs, not owners' uids.
func fileOwner(fi fs.FileInfo) (int, bool) { return 0, false }

// tryLockExclusive takes an exclusive LockFileEx lock on f's first byte
// without waiting; held reports that another process has it.
func tryLockExclusive(f *os.File) (held bool, err error) {
	var ol windows.Overlapped
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// detach starts cmd without a console, in its own process group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
	}
}

// peerUID: Windows offers no peer credentials on Unix sockets.
func peerUID(fd uintptr) (int, error) { return 0, ErrDaemonUnsupported }
