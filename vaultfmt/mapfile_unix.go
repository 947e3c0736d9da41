//go:build unix

package vaultfmt

import "golang.org/x/sys/unix"

// dropPages releases the resident pages of b, a page-aligned part of a
// read-only file mapping (best effort: a failure only costs memory).
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
