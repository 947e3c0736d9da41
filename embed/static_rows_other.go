//go:build !linux

package embed

// dropPages is Linux-only; elsewhere the model's pages stay mapped.
func dropPages(string) {}
