//go:build linux && (amd64 || arm64)

package offline

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The Landlock layer, tested from inside the guarded process: opening
// another process's /proc/<pid>/mem for writing (the route the seccomp
// filter cannot see) fails, and so does connecting a TCP socket the
// process already held before the guard (which seccomp alone lets
// through); unguarded, the same code does both.

func init() {
	childModes["landlock"] = func() int { return landlockChild(false) }
	childModes["landlock-guarded"] = func() int { return landlockChild(true) }
	childModes["landlock-twice"] = func() int {
		// Counts the images this process runs: the guard re-executes
		// once, however many times it is installed.
		n, _ := strconv.Atoi(os.Getenv("OFFLINE_IMAGES"))
		os.Setenv("OFFLINE_IMAGES", strconv.Itoa(n+1))
		for i := 0; i < 3; i++ {
			if err := Enforce(); err != nil {
				os.Stderr.WriteString("enforce: " + err.Error())
				return 3
			}
		}
		fmt.Printf("images=%d", n+1)
		return 0
	}
}

// landlockChild opens /proc/<parent>/mem read-write (the parent, the test
// process, is outside any guard) and connects a TCP socket it made before
// the guard to the parent's loopback listener; it prints what each gave,
// then the guard's Layers.
func landlockChild(guarded bool) int {
	// The socket is made before the guard and without close-on-exec, so
	// it survives the guard's re-execution; the re-executed image finds
	// its number in the environment.
	fd, err := strconv.Atoi(os.Getenv("OFFLINE_PRESOCK"))
	if err != nil {
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err != nil {
			os.Stderr.WriteString("socket: " + err.Error())
			return 2
		}
		os.Setenv("OFFLINE_PRESOCK", strconv.Itoa(fd))
	}
	if guarded {
		if err := Enforce(); err != nil {
			os.Stderr.WriteString("enforce: " + err.Error())
			return 3
		}
	}
	report := func(name string, err error) string {
		var errno syscall.Errno
		switch {
		case err == nil:
			return name + "=ok"
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
			return name + "=denied"
		case errors.As(err, &errno):
			return name + "=" + unix.ErrnoName(errno)
		}
		return name + "=error"
	}
	mem, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", os.Getppid()), os.O_RDWR, 0)
	if err == nil {
		mem.Close()
	}
	addr, _ := net.ResolveTCPAddr("tcp", os.Getenv("OFFLINE_TCP"))
	cerr := unix.Connect(fd, &unix.SockaddrInet4{Port: addr.Port, Addr: [4]byte{127, 0, 0, 1}})
	unix.Close(fd)
	fmt.Printf("%s %s\n%s", report("mem", err), report("connect", cerr), Layers())
	return 0
}

// TestLandlockClosesProcMem: #27's last open route. Where the kernel has
// Landlock, the guarded process cannot open another process's memory for
// writing, nor connect a TCP socket it held before the guard (ABI 4 and
// later); unguarded, the same child does both, so the test can fail.
// Where the kernel lacks Landlock, the guard says so in Layers.
func TestLandlockClosesProcMem(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Setenv("OFFLINE_TCP", ln.Addr().String())
	open := strings.Fields(runMode(t, "landlock"))
	if len(open) < 2 || open[0] != "mem=ok" || open[1] != "connect=ok" {
		t.Fatalf("the unguarded control could not open /proc/<parent>/mem or connect, so the test proves nothing: %v", open)
	}
	out := runMode(t, "landlock-guarded")
	got, layers, _ := strings.Cut(out, "\n")
	abi, aerr := landlockABI()
	t.Logf("Landlock ABI %d (%v); guarded: %s; layers: %s", abi, aerr, got, layers)
	switch {
	case abi >= 4:
		if got != "mem=denied connect=denied" {
			t.Errorf("guarded, Landlock ABI %d: %s, want mem=denied connect=denied", abi, got)
		}
	case abi >= 1:
		if !strings.HasPrefix(got, "mem=denied ") {
			t.Errorf("guarded, Landlock ABI %d: %s, want mem=denied", abi, got)
		}
	default:
		if !strings.Contains(layers, "no Landlock layer") {
			t.Errorf("without Landlock the guard must say so: %q", layers)
		}
	}
	if abi >= 1 && (!strings.HasPrefix(layers, "seccomp filter; Landlock ABI "+strconv.Itoa(abi)) || !strings.Contains(layers, "/proc/<pid>/mem")) {
		t.Errorf("layers: %q", layers)
	}
}

// TestLandlockReexecutesOnce: installing the guard again in the same
// process (the CLI's --assert-offline, then the probe command's own)
// re-executes it only the first time.
func TestLandlockReexecutesOnce(t *testing.T) {
	want := "images=1"
	if abi, _ := landlockABI(); abi >= 1 {
		want = "images=2"
	}
	if got := runMode(t, "landlock-twice"); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
