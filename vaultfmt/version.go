package vaultfmt

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// FormatVersion is the newest vault format version this build reads and
// writes. A release signs it beside each binary, so `compartment update`
// can refuse a binary that could not open the vaults already written.
const FormatVersion = int(formatVersion)

// PeekVersion reads only the format version of the vault at path (the u16
// after the 8-byte magic, FORMAT.md section 2), including versions this build
// cannot open: `compartment update` uses it to refuse a binary older than
// the vault.
func PeekVersion(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("vaultfmt: %w", err)
	}
	defer f.Close()
	var b [10]byte
	if _, err := io.ReadFull(f, b[:]); err != nil || string(b[:8]) != magic {
		return 0, fmt.Errorf("%w: %s", ErrNotVault, path)
	}
	return int(binary.LittleEndian.Uint16(b[8:])), nil
}
