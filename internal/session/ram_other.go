//go:build !linux

package session

// onRAM is false where we cannot tell: sessions then need the test hook
// directory, and COMPARTMENT_PASSPHRASE works as everywhere.
func onRAM(dir string) bool { return false }
