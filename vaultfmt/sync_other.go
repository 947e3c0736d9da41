//go:build !linux

package vaultfmt

import "os"

// fdatasync is a full fsync where fdatasync(2) is not available.
func fdatasync(f *os.File) error { return f.Sync() }
