//go:build failpoints

package devsync

import (
	"errors"
	"testing"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestWriteReachesLogBeforeVault: a store whose vault append fails after
// its log append is not acknowledged, and the next merge applies it: the
// log is the write-ahead record, so nothing acknowledged can miss it.
func TestWriteReachesLogBeforeVault(t *testing.T) {
	_, a, b := pair(t)
	vaultfmt.SetFailpoint(vaultfmt.FailAppendBeforeSync, errors.New("disk gone"))
	_, err := a.v.Store(vault.StoreRequest{Text: "the cafe closes at six", Source: "test"})
	vaultfmt.SetFailpoint(vaultfmt.FailAppendBeforeSync, nil)
	if err == nil {
		t.Fatal("the failed append was acknowledged")
	}
	a.reopen()
	b.merge()
	for _, d := range []*device{a, b} {
		if got := d.liveTexts(); len(got) != 3 {
			t.Fatalf("%s holds %q, want the logged store applied", d.name, got)
		}
	}
}
