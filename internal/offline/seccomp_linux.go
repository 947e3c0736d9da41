//go:build linux && (amd64 || arm64)

package offline

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filter, in classic BPF over struct seccomp_data
// (nr u32 @0, arch u32 @4, ip u64 @8, args [6]u64 @16):
//
//	arch != this arch          → EACCES (a foreign ABI is refused)
//	nr != socket               → allow
//	args[0] (family) == AF_UNIX → allow
//	otherwise                  → EACCES
const (
	offNR   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on little-endian machines
)

func filter() []unix.SockFilter {
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	return []unix.SockFilter{
		stmt(ld, offArch),
		jump(jeq, auditArch, 1, 0), // our arch: go on
		stmt(ret, deny),            // a foreign ABI: refuse everything
		stmt(ld, offNR),
		jump(jeq, unix.SYS_SOCKET, 0, 3), // not socket(2): allow
		stmt(ld, offArg0),
		jump(jeq, unix.AF_UNIX, 1, 0), // AF_UNIX: allow
		stmt(ret, deny),
		stmt(ret, allow),
	}
}

func enforce() error {
	// Install from one thread; TSYNC applies the filter to every other
	// thread of the process, and threads made later inherit it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("offline: no_new_privs: %w", err)
	}
	prog := filter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("offline: install seccomp filter: %w", errno)
	}
	return nil
}
