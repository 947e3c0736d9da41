package embed

import "golang.org/x/sys/unix"

// peerUID is the uid of the process on the other end of the Unix socket
// fd (SO_PEERCRED).
func peerUID(fd uintptr) (int, error) {
	cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
