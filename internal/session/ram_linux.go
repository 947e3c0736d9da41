package session

import "golang.org/x/sys/unix"

// onRAM reports whether dir is on a file system that lives only in RAM
// (tmpfs or ramfs), so a file there is gone after a power loss.
func onRAM(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC
}
