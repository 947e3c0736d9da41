//go:build linux && (amd64 || arm64)

package offline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The descriptor routes: a guarded process must not get a network socket
// from a process outside the filter, by copying it (pidfd_getfd), by
// receiving it over a Unix socket (SCM_RIGHTS), or by driving that process
// (ptrace, process_vm_writev).

func init() {
	childModes["tcp-holder"] = tcpHolder
	childModes["steal"] = func() int { return steal(false) }
	childModes["steal-guarded"] = func() int { return steal(true) }
}

// tcpHolder is the other process: unguarded, it holds a TCP connection to
// the test's loopback listener, offers it over a Unix socket with
// SCM_RIGHTS to anyone who connects, lets any process of the user trace
// it (as with ptrace_scope 0), prints "pid fd" and waits for stdin to end.
func tcpHolder() int {
	addr, err := net.ResolveTCPAddr("tcp", os.Getenv("OFFLINE_TCP"))
	if err != nil {
		return 2
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return 2
	}
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: addr.Port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 2
	}
	unix.Prctl(unix.PR_SET_PTRACER, unix.PR_SET_PTRACER_ANY, 0, 0, 0) // EINVAL without Yama: fine
	ln, err := net.Listen("unix", os.Getenv("OFFLINE_UNIX"))
	if err != nil {
		return 2
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			raw, _ := c.(*net.UnixConn).SyscallConn()
			raw.Write(func(s uintptr) bool {
				unix.Sendmsg(int(s), []byte{'x'}, unix.UnixRights(fd), nil, 0)
				return true
			})
			c.Close()
		}
	}()
	fmt.Printf("%d %d\n", os.Getpid(), fd)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// steal tries every descriptor route against the holder and writes its
// tag down any socket it gets; it prints what each route gave.
func steal(guarded bool) int {
	if guarded {
		if err := Enforce(); err != nil {
			os.Stderr.WriteString("enforce: " + err.Error())
			return 3
		}
	}
	tag := "open"
	if guarded {
		tag = "guarded"
	}
	pid, _ := strconv.Atoi(os.Getenv("OFFLINE_HOLDER_PID"))
	target, _ := strconv.Atoi(os.Getenv("OFFLINE_HOLDER_FD"))
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
	use := func(fd int, how string) error {
		defer unix.Close(fd)
		_, err := unix.Write(fd, []byte(tag+"-"+how+"\n"))
		return err
	}
	getfd := func() error {
		pidfd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return err
		}
		defer unix.Close(pidfd)
		fd, err := unix.PidfdGetfd(pidfd, target, 0)
		if err != nil {
			return err
		}
		return use(fd, "getfd")
	}
	scm := func() error {
		s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(s)
		if err := unix.Connect(s, &unix.SockaddrUnix{Name: os.Getenv("OFFLINE_UNIX")}); err != nil {
			return err
		}
		buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
		_, oobn, _, _, err := unix.Recvmsg(s, buf, oob, 0)
		if err != nil {
			return err
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			return syscall.EBADMSG
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			return syscall.EBADMSG
		}
		return use(fds[0], "scm")
	}
	vmWrite := func() error {
		// One byte to address 0 of the holder: EFAULT if the call is
		// let through, EACCES if the filter stops it.
		b := []byte{0}
		local := []unix.Iovec{{Base: &b[0], Len: 1}}
		remote := []unix.RemoteIovec{{Base: 0, Len: 1}}
		_, err := unix.ProcessVMWritev(pid, local, remote, 0)
		return err
	}
	vmRead := func() error {
		b := []byte{0}
		local := []unix.Iovec{{Base: &b[0], Len: 1}}
		remote := []unix.RemoteIovec{{Base: 0, Len: 1}}
		_, err := unix.ProcessVMReadv(pid, local, remote, 0)
		return err
	}
	fields := []string{report("getfd", getfd()), report("scm", scm()), report("vm_writev", vmWrite()), report("vm_readv", vmRead())}
	if guarded {
		// PTRACE_ATTACH only where it must fail: let through, it would
		// stop the holder.
		_, _, errno := unix.Syscall(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(pid), 0)
		var err error
		if errno != 0 {
			err = errno
		}
		fields = append(fields, report("ptrace", err))
		if err == nil {
			unix.PtraceDetach(pid)
		}
	}
	os.Stdout.WriteString(strings.Join(fields, " "))
	return 0
}

// TestGuardRefusesDescriptorRoutes is the audit's reproduction from inside
// the guarded process: it takes a TCP socket from another process of the
// same user with pidfd_open + pidfd_getfd (and, second route, receives it
// over a Unix socket with SCM_RIGHTS) and writes to a loopback listener.
// Unguarded, the same code gets the socket (where the kernel allows it);
// guarded, every route fails with EACCES and the listener hears nothing
// from it.
func TestGuardRefusesDescriptorRoutes(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	var mu sync.Mutex
	var heard strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := tcp.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 256)
		for {
			n, err := c.Read(b)
			mu.Lock()
			heard.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	sock := filepath.Join(t.TempDir(), "holder")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), "OFFLINE_CHILD=tcp-holder", "OFFLINE_TCP="+tcp.Addr().String(), "OFFLINE_UNIX="+sock)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var pid, fd int
	if _, serr := fmt.Sscan(line, &pid, &fd); err != nil || serr != nil {
		t.Fatalf("the holder did not start: %q %v %v", line, err, serr)
	}
	run := func(mode string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OFFLINE_CHILD="+mode, "OFFLINE_UNIX="+sock,
			"OFFLINE_HOLDER_PID="+strconv.Itoa(pid), "OFFLINE_HOLDER_FD="+strconv.Itoa(fd))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v %s", mode, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	guarded := run("steal-guarded")
	open := run("steal")
	t.Logf("without the guard: %s", open)
	if want := "getfd=denied scm=denied vm_writev=denied vm_readv=denied ptrace=denied"; guarded != want {
		t.Errorf("guarded:\n got %s\nwant %s", guarded, want)
	}
	if !strings.Contains(open, "scm=ok") {
		t.Errorf("the unguarded control did not receive the socket, so the test proves nothing: %s", open)
	}
	stdin.Close()
	holder.Wait()
	tcp.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	mu.Lock()
	got := heard.String()
	mu.Unlock()
	if strings.Contains(got, "guarded") {
		t.Fatalf("the guarded process wrote to the loopback listener: %q", got)
	}
	if !strings.Contains(got, "open-scm") {
		t.Errorf("the unguarded control's write did not arrive: %q", got)
	}
	if strings.Contains(open, "getfd=ok") && !strings.Contains(got, "open-getfd") {
		t.Errorf("pidfd_getfd worked unguarded but its write did not arrive: %q", got)
	}
}
