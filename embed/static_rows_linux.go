package embed

import "golang.org/x/sys/unix"

// dropPages drops this process's mappings of the whole pages inside s, a
// string in the binary's read-only data: the next read faults them back
// in from the page cache. Advice only: an error leaves things as they were.
func dropPages(s string) {
	start, n := pagesWithin(s, uintptr(unix.Getpagesize()))
	if n > 0 {
		unix.Syscall(unix.SYS_MADVISE, start, n, unix.MADV_DONTNEED)
	}
}
