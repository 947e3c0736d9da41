package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Both bundled model files (format versions 1 and 2) are read, and a
// word's nearest neighbour is itself.
func TestNeighboursReadsBothFormats(t *testing.T) {
	for _, file := range []string{"../../../model/static-v1.bin", "../../../model/static-v2.bin"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := neighbours(&out, b, []string{"house"}, 3); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if got := out.String(); !strings.HasPrefix(got, "house (coef ") || !strings.Contains(got, "): house 1.00") {
			t.Errorf("%s: %q, want house's weight and itself first", file, got)
		}
	}
}
