package embed

import "golang.org/x/sys/unix"

// peerUID is the uid of the process on the other end of the Unix socket
// fd (LOCAL_PEERCRED, macOS's counterpart of SO_PEERCRED).
func peerUID(fd uintptr) (int, error) {
	cred, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
