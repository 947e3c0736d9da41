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

// tuneCHeap keeps the daemon's C heap from holding on to memory: at most
// two arenas (glibc gives each allocating thread its own, and ONNX
// Runtime's workers each keep one full of freed buffers), and blocks of
// 1 MiB or more (attention scores, activations of a long batch) mapped and
// unmapped directly instead of being kept in an arena for next time.
func tuneCHeap() {
	C.mallopt(C.M_ARENA_MAX, 2)
	C.mallopt(C.M_MMAP_THRESHOLD, 1<<20)
}
