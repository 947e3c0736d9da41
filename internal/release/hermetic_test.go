package release

import (
	"os"
	"testing"

	"github.com/compartment/compartment/internal/hermetic"
)

// TestMain runs the tests without the COMPARTMENT_* environment of whoever
// runs them (internal/hermetic).
func TestMain(m *testing.M) {
	hermetic.Clear()
	os.Exit(m.Run())
}
