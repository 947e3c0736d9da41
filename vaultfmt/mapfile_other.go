//go:build !unix

package vaultfmt

// dropPages is a no-op where madvise is not available.
func dropPages([]byte) {}
