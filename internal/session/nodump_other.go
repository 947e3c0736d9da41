//go:build !linux

package session

// ForbidCoreDumps is a no-op where this build has no way to do it.
func ForbidCoreDumps() error { return nil }
