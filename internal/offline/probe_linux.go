//go:build linux && (amd64 || arm64)

package offline

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func probeSockets() error {
	for _, s := range []struct {
		name         string
		family, kind int
	}{
		{"TCP/IPv4", unix.AF_INET, unix.SOCK_STREAM},
		{"UDP/IPv4", unix.AF_INET, unix.SOCK_DGRAM},
		{"TCP/IPv6", unix.AF_INET6, unix.SOCK_STREAM},
		{"UDP/IPv6", unix.AF_INET6, unix.SOCK_DGRAM},
	} {
		fd, err := unix.Socket(s.family, s.kind, 0)
		if err == nil {
			unix.Close(fd)
			return fmt.Errorf("offline: the guard let a %s socket open", s.name)
		}
		if err != unix.EACCES {
			return fmt.Errorf("offline: a %s socket failed with %v, not the guard's EACCES", s.name, err)
		}
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return fmt.Errorf("offline: the guard refused a Unix socket (the embedding daemon needs one): %v", err)
	}
	unix.Close(fd)
	return nil
}
