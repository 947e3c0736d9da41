package vault

import (
	"errors"
	"fmt"
	"os"
)

// ExportFile writes v's export ([Vault.Export]) to a new file at path,
// readable by its owner only (it is plaintext). An existing file is never
// overwritten, and an export that fails removes what it wrote.
func ExportFile(v *Vault, path string) (int, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return 0, fmt.Errorf("%s exists; nothing was written (remove it or choose another name)", path)
	}
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	n, err := v.Export(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return 0, err
	}
	return n, nil
}

// Purge deletes the vault at path with the files that exist only beside
// it: its settings file, its lock, its trusted pack keys, a compaction's
// file left by a process that died building it, and the
// sidecars other packages keep there, which the caller names (in a dry
// run it only lists them). It returns those that existed. Every memory in
// the vault is lost.
func Purge(path string, dry bool, sidecars ...string) ([]string, error) {
	var gone []string
	for _, p := range append([]string{path, ConfigPath(path), path + ".lock", TrustedKeysPath(path), path + ".build"}, sidecars...) {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if !dry {
			if err := os.Remove(p); err != nil {
				return gone, fmt.Errorf("delete %s: %w", p, err)
			}
		}
		gone = append(gone, p)
	}
	return gone, nil
}
