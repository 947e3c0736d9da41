//go:build linux && (amd64 || arm64)

package offline

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filter is an allow-list of the routes to the network, in classic BPF
// over struct seccomp_data (nr u32 @0, arch u32 @4, ip u64 @8,
// args [6]u64 @16):
//
//	arch != this arch                      → EACCES (i386, x32 or another ABI)
//	nr ≥ 0x40000000 (the x32 bit)          → EACCES
//	io_uring_setup / _enter / _register    → EACCES (IORING_OP_SOCKET and
//	                                          CONNECT bypass socket(2))
//	pidfd_getfd                            → EACCES (copies a descriptor,
//	                                          a TCP socket say, out of
//	                                          another process)
//	recvmsg, recvmmsg                      → EACCES (the only calls that
//	                                          receive SCM_RIGHTS descriptors
//	                                          over a Unix socket)
//	ptrace, process_vm_readv / _writev     → EACCES (make another process,
//	                                          one not under this filter,
//	                                          open the connection instead)
//	socket, socketpair: family == AF_UNIX  → allow, any other family → EACCES
//	anything else                          → allow
//
// Nothing in compartment calls recvmsg: its Unix sockets (the embedding
// daemon) are read with read(2), which discards any descriptors sent
// along, so a Unix socket or socketpair stays safe to use. pidfd_open is
// left alone: a pidfd without pidfd_getfd can only signal or wait, and the
// Go runtime uses it to manage child processes.
//
// The kernel keeps a filter across fork and execve, and NO_NEW_PRIVS
// (required to install one unprivileged) also survives execve, so every
// child inherits it and cannot shed it.
const (
	offNR   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits on little-endian machines: the int family

	x32Bit = 0x40000000 // __X32_SYSCALL_BIT
)

// insn is one BPF instruction whose jump targets are labels, resolved by
// [assemble] into the relative offsets the kernel wants.
type insn struct {
	label  string // this instruction's label, if any
	code   uint16
	k      uint32
	jt, jf string // jump targets ("" = the next instruction)
}

// assemble resolves labels; it panics on a label it cannot reach forward,
// which is a bug in the program below.
func assemble(prog []insn) []unix.SockFilter {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	rel := func(from int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := at[label]
		if !ok || to <= from || to-from-1 > 255 {
			panic("offline: bad jump to " + label)
		}
		return uint8(to - from - 1)
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: rel(i, in.jt), Jf: rel(i, in.jf)}
	}
	return out
}

func filter() []unix.SockFilter {
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	return assemble([]insn{
		{code: ld, k: offArch},
		{code: jeq, k: auditArch, jf: "deny"},
		{code: ld, k: offNR},
		{code: jge, k: x32Bit, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_SETUP, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_ENTER, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_REGISTER, jt: "deny"},
		{code: jeq, k: unix.SYS_PIDFD_GETFD, jt: "deny"},
		{code: jeq, k: unix.SYS_RECVMSG, jt: "deny"},
		{code: jeq, k: unix.SYS_RECVMMSG, jt: "deny"},
		{code: jeq, k: unix.SYS_PTRACE, jt: "deny"},
		{code: jeq, k: unix.SYS_PROCESS_VM_READV, jt: "deny"},
		{code: jeq, k: unix.SYS_PROCESS_VM_WRITEV, jt: "deny"},
		{code: jeq, k: unix.SYS_SOCKET, jt: "family"},
		{code: jeq, k: unix.SYS_SOCKETPAIR, jt: "family", jf: "allow"},
		{label: "family", code: ld, k: offArg0},
		{code: jeq, k: unix.AF_UNIX, jt: "allow", jf: "deny"},
		{label: "deny", code: ret, k: deny},
		{label: "allow", code: ret, k: allow},
	})
}

func enforce() error {
	// Landlock first: it may re-execute the process (landlock_linux.go),
	// and the filter below then goes into the new image.
	note := enterLandlock()
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
	layersNote = "seccomp filter; " + note
	return nil
}
