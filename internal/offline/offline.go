// Package offline makes this process unable to open a network socket, so
// "nothing leaves the machine" is enforced by the kernel rather than
// promised by the code. It is what --assert-offline (and
// COMPARTMENT_ASSERT_OFFLINE=1) turns on.
package offline

import "errors"

// ErrUnsupported is returned where the guard cannot be installed.
var ErrUnsupported = errors.New("offline: the network guard needs Linux on amd64 or arm64")

// Enforce installs the guard for every thread of the process, now and
// later, and for every process it starts: socket(2) and socketpair(2) for
// any family but AF_UNIX, io_uring (whose socket and connect operations
// bypass socket(2)), the x32 ABI and every foreign ABI fail with EACCES.
// Unix sockets stay allowed (the embedding daemon uses one). It cannot be
// undone.
func Enforce() error { return enforce() }
