package vault

import (
	"errors"
	"fmt"
)

// Sentinel errors; callers (the CLI, the MCP server) test them with errors.Is
// and turn them into a message or an exit status.
var (
	ErrNotFound  = errors.New("not found")
	ErrAmbiguous = errors.New("that id prefix matches more than one memory")
	ErrTooShort  = errors.New("that id prefix is too short")
	ErrInvalid   = errors.New("invalid input")
	ErrDenied    = errors.New("permission denied")
	ErrLocked    = errors.New("the vault is locked: run `compartment unlock`")
	ErrReadOnly  = errors.New("the vault is open read-only")
)

// invalidf returns an ErrInvalid with a message that says what to do.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
