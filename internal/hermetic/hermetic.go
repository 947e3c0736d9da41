// Package hermetic makes a test binary independent of the COMPARTMENT_*
// environment of whoever runs it. The README tells users to export
// COMPARTMENT_PASSPHRASE, COMPARTMENT_VAULT and others; a test that opens
// a vault or runs compartment must see only what it sets itself. Tests
// call [Clear] from TestMain (it is meant for tests only).
package hermetic

import (
	"os"
	"strings"
)

// knob says whether name steers the test suite rather than the product
// (how long a soak runs, where the test models and runtime are, the
// helper-process switch), and is kept.
func knob(name string) bool {
	switch strings.TrimPrefix(name, "COMPARTMENT_") {
	case "LONG", "SOAK_SECONDS", "KILL_ROUNDS", "BENCH_N", "DASH_SHOTS", "PANEL_SHOTS", "LME_DEV",
		"ORT_LIB", "MODELS_DIR", "EMBED_TEST_HELPER":
		return true
	}
	return false
}

// Clear unsets every COMPARTMENT_* variable that is not a test knob, and
// returns the names it unset. In a helper process (a test binary a test
// started again, COMPARTMENT_EMBED_TEST_HELPER=1) it does nothing: that
// environment is the test's own.
func Clear() []string {
	if os.Getenv("COMPARTMENT_EMBED_TEST_HELPER") == "1" {
		return nil
	}
	var gone []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "COMPARTMENT_") && !knob(name) {
			os.Unsetenv(name)
			gone = append(gone, name)
		}
	}
	return gone
}
