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
		for _, r := range outsideModel(uintptr(start), uintptr(end)) {
			unix.Syscall(unix.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_PAGEOUT)
		}
	}
}

// outsideModel splits [start, end) around the bundled model's pages: paging
// those out would evict them from the page cache, and every row read after
// it would go to the disk (the row cache drops the model's pages from the
// process without evicting them, see static_rows.go).
func outsideModel(start, end uintptr) [][2]uintptr {
	ms, n := pagesWithin(staticModelFile, uintptr(unix.Getpagesize()))
	me := ms + n
	if n == 0 || me <= start || ms >= end {
		return [][2]uintptr{{start, end}}
	}
	var out [][2]uintptr
	if start < ms {
		out = append(out, [2]uintptr{start, ms})
	}
	if me < end {
		out = append(out, [2]uintptr{me, end})
	}
	return out
}
