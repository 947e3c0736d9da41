//go:build failpoints

package vault

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestAncestryCompactionCrash: the compaction that writes the ancestry
// record fails at each point of its commit protocol (payload half
// written, tmp file synced but not renamed, the rename itself) on the
// other machine. Each leaves the copy at its old epoch, judged by its
// journal chain; the retried compaction writes the record whole, judged
// by it. Either way the divergent copy is refused and the forward one
// accepted: a crash never turns one into the other.
func TestAncestryCompactionCrash(t *testing.T) {
	for _, point := range []string{vaultfmt.FailCompactMidWrite, vaultfmt.FailCompactBeforeRename, vaultfmt.FailCompactRename} {
		for _, divergent := range []bool{true, false} {
			name := point + "/forward"
			if divergent {
				name = point + "/divergent"
			}
			t.Run(name, func(t *testing.T) {
				h := newRollbackHarness(t)
				h.write("fact A")
				cp := h.copyTo("laptop.vault")
				if divergent {
					h.write("fact B")
				}
				o := h.opts("user")
				o.StateDir = filepath.Join(t.TempDir(), "other-machine")
				ov, err := Open(cp, o)
				if err != nil {
					t.Fatal(err)
				}
				defer ov.Close()
				for _, text := range fourElsewhere {
					h.store(ov, StoreRequest{Text: text})
				}
				saved := h.copyTo("saved.vault")
				check := func(when string, wantEpoch uint64) {
					t.Helper()
					h.restore(cp)
					v, err := h.openErr(false)
					switch {
					case divergent && !errors.Is(err, ErrRollback):
						t.Fatalf("%s: the divergent copy opened: %v", when, err)
					case !divergent && err != nil:
						t.Fatalf("%s: the forward copy was refused: %v", when, err)
					case !divergent:
						if e := v.file.Header().Epoch; e != wantEpoch {
							t.Fatalf("%s: the copy is at epoch %d, want %d", when, e, wantEpoch)
						}
						v.Close()
					}
					h.restore(saved) // this machine's own file back
				}

				vaultfmt.SetFailpoint(point, syscall.EIO)
				err = ov.file.Compact()
				vaultfmt.SetFailpoint(point, nil)
				if !errors.Is(err, syscall.EIO) {
					t.Fatalf("compaction at %s: %v", point, err)
				}
				check("after the failed compaction", 0)
				if err := ov.file.Compact(); err != nil {
					t.Fatal(err)
				}
				check("after the retried compaction", 1)
			})
		}
	}
}
