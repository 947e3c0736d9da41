//go:build !linux || !(amd64 || arm64)

package offline

func enforce() error { return ErrUnsupported }
