package hermetic

import (
	"os"
	"testing"
)

func TestClear(t *testing.T) {
	t.Setenv("COMPARTMENT_PASSPHRASE", "the user's own")
	t.Setenv("COMPARTMENT_VAULT", "/home/u/work.vault")
	t.Setenv("COMPARTMENT_LONG", "1")
	t.Setenv("COMPARTMENTALIZE", "not ours")
	Clear()
	for _, k := range []string{"COMPARTMENT_PASSPHRASE", "COMPARTMENT_VAULT"} {
		if _, set := os.LookupEnv(k); set {
			t.Errorf("%s is still set", k)
		}
	}
	if os.Getenv("COMPARTMENT_LONG") != "1" || os.Getenv("COMPARTMENTALIZE") != "not ours" {
		t.Error("a test knob or another program's variable was cleared")
	}
}
