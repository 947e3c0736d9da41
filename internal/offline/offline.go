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
// bypass socket(2)), the descriptor routes (pidfd_getfd, recvmsg, ptrace,
// process_vm_*), the x32 ABI and every foreign ABI fail with EACCES. Unix
// sockets stay allowed (the embedding daemon uses one). Where the kernel
// has Landlock, the process is also put in a Landlock domain (TCP bind and
// connect denied from ABI 4; no ptrace access, so no /proc/<pid>/mem, to
// processes outside it), which re-executes the binary once: call Enforce
// before the process has done anything it would not do twice. It cannot
// be undone.
func Enforce() error { return enforce() }

// Layers says what Enforce installed in this process, in a phrase for
// status and self-test output (where the kernel lacks Landlock, it says
// so and what stays open).
func Layers() string { return layersNote }
