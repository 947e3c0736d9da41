//go:build !linux || !(amd64 || arm64)

package offline

func probeSockets() error { return ErrUnsupported }
