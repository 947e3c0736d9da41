//go:build !failpoints

package vaultfmt

// failpoint is never set in a production build: the registry and its
// setter exist only with the failpoints build tag (failpoint_on.go).
func failpoint(string) error { return nil }
