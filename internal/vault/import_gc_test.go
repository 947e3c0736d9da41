package vault

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestImportBoundsItsHeap: while an import runs, a soft memory limit
// follows the vault's live heap (at most importHeadroom times it plus
// importSlack, and above the live heap); a limit the caller set is left
// alone; and the limit in force before is back afterwards.
func TestImportBoundsItsHeap(t *testing.T) {
	enc := staticEncoder(t)
	v, err := Create(filepath.Join(t.TempDir(), "gc.vault"), Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for i, before := range []int64{math.MaxInt64, 3 << 30} {
		debug.SetMemoryLimit(before)
		calls, limited := 0, 0
		res, err := v.Import(&claimLines{r: rand.New(rand.NewPCG(uint64(i), 3)), n: 600}, "gc test", func(int) {
			calls++
			limit := debug.SetMemoryLimit(-1)
			if before != math.MaxInt64 {
				if limit != before {
					t.Errorf("the caller's limit %d became %d during the import", before, limit)
				}
				return
			}
			if limit == math.MaxInt64 {
				return
			}
			limited++
			if limit < importSlack || limit > 1<<30 {
				t.Errorf("limit %d MB during a small import", limit>>20)
			}
		})
		if err != nil || res.Stored == 0 || calls == 0 {
			t.Fatalf("import: %+v, %v, %d progress calls", res, err, calls)
		}
		if before == math.MaxInt64 && limited == 0 {
			t.Errorf("no memory limit was set during the import")
		}
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Errorf("limit %d before, %d after the import", before, after)
		}
	}
}
