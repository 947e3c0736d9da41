//go:build unix && !linux && !darwin

package embed

import "errors"

// peerUID has no implementation here, so the daemon and its clients
// refuse each other and every process loads the model itself.
func peerUID(fd uintptr) (int, error) {
	return 0, errors.New("embed: peer credentials are not implemented on this system; the model loads in each process")
}
