//go:build !cgo

package embed

import "fmt"

// openONNX needs cgo: ONNX Runtime is a C library.
func openONNX(m *Manifest, dir, runtimeLib string) (Encoder, error) {
	return nil, fmt.Errorf("%w: this compartment was built without cgo, so it cannot load model %s", ErrNoRuntime, m.Name)
}

// trimCHeap has no C heap to trim without cgo.
func trimCHeap() {}

// tuneCHeap has no C heap to tune without cgo.
func tuneCHeap() {}

// ortLoaded is false: without cgo ONNX Runtime is never loaded.
func ortLoaded() bool { return false }
