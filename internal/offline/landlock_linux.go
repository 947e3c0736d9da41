//go:build linux && (amd64 || arm64)

package offline

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The second layer: a Landlock domain under the seccomp filter.
//
// A process inside any Landlock domain may ptrace-access only processes in
// the same domain or one nested in it, so it cannot open /proc/<pid>/mem
// (nor use ptrace, process_vm_readv/_writev or pidfd_getfd) on any process
// outside the guard: the route the seccomp filter cannot see, since it is
// an open(2) of a path. From ABI 4 the domain also handles TCP bind and
// connect with no rule allowing any port, so both are denied even if a
// TCP socket reached the process some other way. Before ABI 4 the domain
// handles only LANDLOCK_ACCESS_FS_MAKE_BLOCK (creating a block device
// node, which compartment never does and an unprivileged user cannot
// anyway), because a ruleset must handle something for a domain to exist.
//
// landlock_restrict_self restricts only the calling thread, and the Go
// runtime has several threads before main runs. So the guard restricts one locked thread and re-executes the
// binary from it (/proc/self/exe, same arguments and environment): execve
// keeps only that thread, and everything the new image starts descends
// from it. The environment marker below says, in the new image, that this
// pid already did so; a child has another pid, so it does the same once
// (its domain nests in the parent's, which is allowed and changes nothing
// the parent's does not).
const landlockMarker = "_COMPARTMENT_OFFLINE_LANDLOCK_PID" // not COMPARTMENT_*: tests clear those

// layersNote is what Enforce installed, for [Layers].
var layersNote = "not installed"

// landlocked is the note once this process image is in the domain (a
// second Enforce, as `--assert-offline offline-probe` makes, must not
// re-execute again).
var landlocked string

// landlockABI returns the kernel's Landlock ABI version, or 0 with the
// reason when there is none.
func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// landlockDescription says what a domain at abi covers.
func landlockDescription(abi int) string {
	if abi >= 4 {
		return fmt.Sprintf("Landlock ABI %d: TCP bind and connect denied, and no ptrace access (/proc/<pid>/mem, ptrace, process_vm_*) to any process outside the guard", abi)
	}
	return fmt.Sprintf("Landlock ABI %d: no ptrace access (/proc/<pid>/mem, ptrace, process_vm_*) to any process outside the guard (TCP rules need ABI 4)", abi)
}

// enterLandlock puts the whole process in a Landlock domain, re-executing
// it when it is not in one yet (it does not return then). It returns the
// note for [Layers]; a kernel without Landlock, or one that refuses the
// ruleset, degrades to the seccomp filter alone with a note saying so.
func enterLandlock() string {
	if landlocked != "" {
		return landlocked
	}
	abi, err := landlockABI()
	if os.Getenv(landlockMarker) == strconv.Itoa(os.Getpid()) {
		os.Unsetenv(landlockMarker)
		landlocked = landlockDescription(abi)
		return landlocked
	}
	if err != nil || abi < 1 {
		return fmt.Sprintf("no Landlock layer: this kernel has none (%v), so /proc/<pid>/mem of another process of the same user is not closed", err)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK}
	size := unsafe.Offsetof(attr.Handled_access_net)
	if abi >= 4 {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		size = unsafe.Offsetof(attr.Scoped)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Sprintf("no Landlock layer: the kernel (ABI %d) refused the ruleset (%v), so /proc/<pid>/mem of another process of the same user is not closed", abi, e)
	}
	defer unix.Close(int(fd))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// no_new_privs (per thread, kept across execve) is what lets an
	// unprivileged thread restrict itself; the seccomp filter needs it too.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Sprintf("no Landlock layer: no_new_privs failed (%v), so /proc/<pid>/mem of another process of the same user is not closed", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Sprintf("no Landlock layer: the kernel (ABI %d) refused to restrict the process (%v), so /proc/<pid>/mem of another process of the same user is not closed", abi, e)
	}
	os.Setenv(landlockMarker, strconv.Itoa(os.Getpid()))
	err = syscall.Exec("/proc/self/exe", os.Args, os.Environ())
	// Still here: only this thread is in the domain, which restricts it
	// more and the rest not at all.
	os.Unsetenv(landlockMarker)
	landlocked = fmt.Sprintf("no Landlock layer: re-executing inside the domain failed (%v), so /proc/<pid>/mem of another process of the same user is not closed", err)
	return landlocked
}
