package embed

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// trimResident gives back memory the daemon holds but does not need: the
// Go heap's garbage and the C heap's free pages (buffers of the last big
// batch). With pageOutCode it also drops the read-only pages of code and
// constants that start-up touched once: ONNX Runtime registers every
// kernel it has while creating a session, which faults in most of its
// 33 MB of code, while inference runs a small part of it. Dropped file
// pages stay in the page cache and come back on the next touch, so this
// costs page faults on the next request and nothing else; it is done once,
// after loading, not after every quiet spell.
func trimResident(pageOutCode bool) {
	debug.FreeOSMemory()
	trimCHeap()
	if pageOutCode {
		pageOutReadOnly()
	}
}

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
