package vaultfmt

import (
	"errors"
	"fmt"
)

// Sentinel errors; callers test them with errors.Is.
var (
	ErrNotVault           = errors.New("vaultfmt: not a vault file")
	ErrUnsupportedVersion = errors.New("vaultfmt: unsupported format version")
	ErrWrongPassphrase    = errors.New("vaultfmt: wrong passphrase or keyfile")
	ErrKeyfileRequired    = errors.New("vaultfmt: this vault needs its keyfile")
	ErrCorrupt            = errors.New("vaultfmt: vault file is damaged or has been tampered with")
	ErrExists             = errors.New("vaultfmt: vault already exists")
	ErrClosed             = errors.New("vaultfmt: vault is closed")
)

// CorruptError says where a vault file is damaged. errors.Is(err,
// ErrCorrupt) holds for it, so callers that only need the class test the
// sentinel and callers that report it read the fields.
type CorruptError struct {
	Region string // "header", "payload", "payload end marker", "journal", "signature", "file"
	Offset int64  // file offset of the damaged frame or field, -1 if unknown
	Frame  int    // frame number within the region, -1 if not a frame
	Reason string
}

func (e *CorruptError) Error() string {
	where := e.Region
	if e.Frame >= 0 {
		where += fmt.Sprintf(" frame %d", e.Frame)
	}
	if e.Offset >= 0 {
		where += fmt.Sprintf(" at offset %d", e.Offset)
	}
	return fmt.Sprintf("%v: %s: %s", ErrCorrupt, where, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(region string, off int64, frame int, format string, args ...any) error {
	return &CorruptError{Region: region, Offset: off, Frame: frame, Reason: fmt.Sprintf(format, args...)}
}
