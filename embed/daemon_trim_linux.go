package embed

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pageOutReadOnly advises the kernel to reclaim this process's private
// read-only file mappings.
func pageOutReadOnly() {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") || fields[1][1] == 'w' || fields[1][3] != 'p' {
			continue
		}
		span := strings.SplitN(fields[0], "-", 2)
		start, err1 := strconv.ParseUint(span[0], 16, 64)
		end, err2 := strconv.ParseUint(span[1], 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// Advice only: failure (an old kernel) leaves things as they were.
		unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT)
	}
}
