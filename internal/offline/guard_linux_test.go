//go:build linux && (amd64 || arm64)

package offline

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runBPF executes a classic BPF program over one struct seccomp_data, as
// the kernel does for the few instructions the filter uses.
func runBPF(t *testing.T, prog []unix.SockFilter, nr, arch uint32, arg0 uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	binary.LittleEndian.PutUint64(data[16:], arg0)
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			taken := acc == in.K
			if in.Code&0xf0 == unix.BPF_JGE {
				taken = acc >= in.K
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program fell off its end")
	return 0
}

// TestFilterDecisions runs the filter's program over the system calls
// that reach the network and some that do not, on this architecture.
func TestFilterDecisions(t *testing.T) {
	prog := filter()
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	cases := []struct {
		name string
		nr   uint32
		arch uint32
		arg0 uint64
		want uint32
	}{
		{"socket AF_UNIX", unix.SYS_SOCKET, auditArch, unix.AF_UNIX, unix.SECCOMP_RET_ALLOW},
		{"socket AF_INET", unix.SYS_SOCKET, auditArch, unix.AF_INET, deny},
		{"socket AF_INET6", unix.SYS_SOCKET, auditArch, unix.AF_INET6, deny},
		{"socket AF_NETLINK", unix.SYS_SOCKET, auditArch, unix.AF_NETLINK, deny},
		{"socket AF_PACKET", unix.SYS_SOCKET, auditArch, unix.AF_PACKET, deny},
		{"socketpair AF_UNIX", unix.SYS_SOCKETPAIR, auditArch, unix.AF_UNIX, unix.SECCOMP_RET_ALLOW},
		{"socketpair AF_INET", unix.SYS_SOCKETPAIR, auditArch, unix.AF_INET, deny},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, auditArch, 8, deny},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER, auditArch, 3, deny},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER, auditArch, 3, deny},
		{"x32 socket", x32Bit | 41, auditArch, unix.AF_UNIX, deny},
		{"x32 getpid", x32Bit | 39, auditArch, 0, deny},
		{"foreign arch (i386)", 359, unix.AUDIT_ARCH_I386, unix.AF_INET, deny},
		{"foreign arch, a harmless call", unix.SYS_GETPID, unix.AUDIT_ARCH_I386, 0, deny},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD, auditArch, 3, deny},
		{"recvmsg", unix.SYS_RECVMSG, auditArch, 3, deny},
		{"recvmmsg", unix.SYS_RECVMMSG, auditArch, 3, deny},
		{"ptrace", unix.SYS_PTRACE, auditArch, unix.PTRACE_ATTACH, deny},
		{"process_vm_readv", unix.SYS_PROCESS_VM_READV, auditArch, 1, deny},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV, auditArch, 1, deny},
		{"pidfd_open (signal and wait only)", unix.SYS_PIDFD_OPEN, auditArch, 1, unix.SECCOMP_RET_ALLOW},
		{"sendmsg (passes out, obtains nothing)", unix.SYS_SENDMSG, auditArch, 3, unix.SECCOMP_RET_ALLOW},
		{"getpid", unix.SYS_GETPID, auditArch, 0, unix.SECCOMP_RET_ALLOW},
		{"read", unix.SYS_READ, auditArch, 0, unix.SECCOMP_RET_ALLOW},
	}
	for _, c := range cases {
		if got := runBPF(t, prog, c.nr, c.arch, c.arg0); got != c.want {
			t.Errorf("%s: filter returns %#x, want %#x", c.name, got, c.want)
		}
	}
}

// probeNetwork tries every route to the network the filter closes, from
// inside this process, and reports each as ok, denied (EACCES) or the
// error the kernel gave.
func probeNetwork() string {
	report := func(name string, err error) string {
		switch {
		case err == nil:
			return name + "=ok"
		case errors.Is(err, syscall.EACCES):
			return name + "=denied"
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return name + "=" + unix.ErrnoName(errno)
		}
		return name + "=error"
	}
	sock := func(family int) error {
		fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	}
	pair := func(family int) error {
		fds, err := unix.Socketpair(family, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return err
	}
	uring := func() error {
		var params [120]byte // struct io_uring_params
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params)), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	}
	x32 := func() error {
		if _, _, errno := unix.Syscall(x32Bit|unix.SYS_GETPID, 0, 0, 0); errno != 0 {
			return errno
		}
		return nil
	}
	return strings.Join([]string{
		report("inet", sock(unix.AF_INET)),
		report("inet6", sock(unix.AF_INET6)),
		report("netlink", func() error {
			fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}()),
		report("pair-inet", pair(unix.AF_INET)),
		report("pair-unix", pair(unix.AF_UNIX)),
		report("unix", sock(unix.AF_UNIX)),
		report("io_uring", uring()),
		report("x32", x32()),
	}, " ")
}

// probeChild runs the probes in a child of this process (the test binary
// again, which does not install the guard itself).
func probeChild() string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OFFLINE_CHILD=probe")
	out, err := cmd.Output()
	if err != nil {
		return "child-failed:" + err.Error()
	}
	return strings.TrimSpace(string(out))
}

func init() {
	childModes["probe"] = func() int {
		os.Stdout.WriteString(probeNetwork())
		return 0
	}
	childModes["probe-guarded"] = func() int {
		if err := Enforce(); err != nil {
			os.Stderr.WriteString("enforce: " + err.Error())
			return 3
		}
		os.Stdout.WriteString(probeNetwork() + "\n" + probeChild())
		return 0
	}
}

// TestGuardHoldsFromInside: inside the guarded process, and in a process
// it starts, every route the filter closes fails with EACCES: an AF_INET,
// AF_INET6 or netlink socket, socketpair of a non-Unix family, io_uring
// (the audit reached a 127.0.0.1 listener through IORING_OP_SOCKET and
// CONNECT under the old filter) and the x32 ABI; Unix sockets still work.
func TestGuardHoldsFromInside(t *testing.T) {
	open := strings.Fields(runMode(t, "probe"))
	if len(open) != 8 || open[0] != "inet=ok" || open[5] != "unix=ok" {
		t.Fatalf("the unguarded probe did not run as expected: %v", open)
	}
	t.Logf("without the guard: %v", open)
	out := runMode(t, "probe-guarded")
	self, child, _ := strings.Cut(out, "\n")
	want := "inet=denied inet6=denied netlink=denied pair-inet=denied pair-unix=ok unix=ok io_uring=denied x32=denied"
	if self != want {
		t.Errorf("guarded process:\n got %s\nwant %s", self, want)
	}
	if child != want {
		t.Errorf("its child:\n got %s\nwant %s", child, want)
	}
}

func runMode(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OFFLINE_CHILD="+mode)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child %s: %v %s", mode, err, out)
	}
	return strings.TrimSpace(string(out))
}
