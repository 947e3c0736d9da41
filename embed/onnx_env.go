//go:build cgo

package embed

// #include <malloc.h>
import "C"

import (
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ortEnv is the process's one ONNX Runtime environment. The runtime allows
// one per process; it lives until the process exits.
var ortEnv struct {
	sync.Mutex
	path string // the library loaded, "" until then
}

// ensureORT loads the ONNX Runtime library once per process. A second call
// with another setting keeps the library already loaded.
func ensureORT(setting string) (string, error) {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	if ortEnv.path != "" {
		return ortEnv.path, nil
	}
	path, err := findORTLib(setting)
	if err != nil {
		return "", err
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return "", fmt.Errorf("%w: load %s: %v", ErrNoRuntime, path, err)
	}
	ortEnv.path = path
	return path, nil
}

// trimCHeap returns the C heap's free pages (ONNX Runtime's start-up
// scratch) to the system.
func trimCHeap() { C.malloc_trim(0) }

// tuneCHeap fixes how the daemon's C heap grows and shrinks. glibc's
// defaults adapt to the largest block freed so far: after one long batch
// they keep up to twice that (tens of MB) at the top of each arena for
// ever, and malloc_trim cannot release the top of a thread's own arena.
// So: one arena, which malloc_trim can empty (inferences run one per
// core, so there is little contention for it); blocks up to 32 MiB from
// the heap, reused by the next request (a fresh page costs a fault,
// measured at ~25 µs on this machine's VM); and more than 1 MiB free at
// the top goes back at once. A daemon started by a client gets the same
// settings through GLIBC_TUNABLES, before its first allocation.
func tuneCHeap() {
	C.mallopt(C.M_ARENA_MAX, 1)
	C.mallopt(C.M_MMAP_THRESHOLD, 32<<20)
	C.mallopt(C.M_TRIM_THRESHOLD, 1<<20)
}

// ortLoaded reports whether this process has loaded ONNX Runtime.
func ortLoaded() bool {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	return ortEnv.path != ""
}
