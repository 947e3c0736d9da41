package embed

import (
	"os"
	"strings"
	"testing"
)

// TestMain runs the tests without the COMPARTMENT_* environment of whoever
// runs them (a user's COMPARTMENT_EMBED_SOCKET would reach their own
// daemon). It is internal/hermetic's Clear, copied because embed sits
// below internal/ in the package map; the kept names are the same.
func TestMain(m *testing.M) {
	// helperEnv, spelled out: only the unix build declares it.
	if os.Getenv("COMPARTMENT_EMBED_TEST_HELPER") == "1" {
		// A helper process (the daemon a test started): its environment
		// is the test's own.
		os.Exit(m.Run())
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.TrimPrefix(name, "COMPARTMENT_") {
		case "LONG", "SOAK_SECONDS", "KILL_ROUNDS", "BENCH_N", "DASH_SHOTS", "PANEL_SHOTS", "LME_DEV",
			"ORT_LIB", "MODELS_DIR", "EMBED_TEST_HELPER":
			continue
		}
		if strings.HasPrefix(name, "COMPARTMENT_") {
			os.Unsetenv(name)
		}
	}
	os.Exit(m.Run())
}
