//go:build !linux || !(amd64 || arm64)

package offline

import "runtime"

func enforce() error { return unsupported(runtime.GOOS, runtime.GOARCH) }

// layersNote is what Enforce installed, for [Layers]: nothing here.
var layersNote = "not installed"
