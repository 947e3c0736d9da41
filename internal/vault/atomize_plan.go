package vault

import (
	"encoding/json"
	"fmt"
	"os"
)

// WriteAtomizePlan writes items as the JSONL plan [Vault.ApplyAtomize]
// reads back once an agent has filled in the pieces. The file is new
// (never one that exists), private (0600: it holds memories unencrypted),
// and removed again if it cannot be written whole.
func WriteAtomizePlan(path string, items []AtomizeItem) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("atomize: %w (nothing was written; choose a new file name)", err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err = enc.Encode(it); err != nil {
			break
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("atomize: write %s: %w", path, err)
	}
	return nil
}
