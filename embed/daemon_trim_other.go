//go:build !linux

package embed

// pageOutReadOnly needs Linux's /proc/self/maps and MADV_PAGEOUT; elsewhere
// the code pages stay resident until the system wants them.
func pageOutReadOnly() {}
