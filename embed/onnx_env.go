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
