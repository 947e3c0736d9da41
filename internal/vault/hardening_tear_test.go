//go:build failpoints

package vault

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// tornAt runs write with the vault's append torn after frames frames (and
// bytes more), as a kill -9 at that moment would leave it, then reopens
// the vault and returns it.
func (h *harness) tornAt(frames int, bytes int64, write func(v *Vault) error) *Vault {
	h.t.Helper()
	v := h.open("user")
	vaultfmt.SetFailpoint(vaultfmt.FailAppendTear, &vaultfmt.Tear{Frames: frames, Bytes: bytes})
	err := write(v)
	vaultfmt.SetFailpoint(vaultfmt.FailAppendTear, nil)
	var tear *vaultfmt.Tear
	if !errors.As(err, &tear) {
		h.t.Fatalf("write: %v, want the simulated crash", err)
	}
	v.Close()
	return h.open("user")
}

// checkWhole asserts that the vault holds either none or all of want (by
// text), that the audit chain is intact and names every record.
func checkWhole(t *testing.T, v *Vault, want []string, frames int) (whole bool) {
	t.Helper()
	have := map[string]bool{}
	for _, r := range v.st.records.all() {
		have[r.Text] = true
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	if n != 0 && n != len(want) {
		t.Fatalf("torn after %d frames: %d of %d in the vault", frames, n, len(want))
	}
	if rep, err := v.AuditVerify(); err != nil || !rep.OK {
		t.Fatalf("torn after %d frames: audit %+v %v", frames, rep, err)
	}
	return n == len(want)
}

// TestStoreManyAllOrNothingAtEveryFrame: memory_store_many's batch (a
// record and an audit entry per fact) torn at every frame boundary, and
// inside a frame, leaves none of it; complete, all of it. Before batch
// markers a tear after frame k left k/2 facts, some without their audit
// entry.
func TestStoreManyAllOrNothingAtEveryFrame(t *testing.T) {
	facts := []string{"the build server is jupiter", "the wiki lives on port 8080", "backups run at 02:00"}
	frames := 2 * len(facts)
	for k := 0; k <= frames; k++ {
		for _, extra := range []int64{0, 40} {
			if k == frames && extra > 0 {
				continue
			}
			t.Run(fmt.Sprintf("frames=%d+%dB", k, extra), func(t *testing.T) {
				h := newHarness(t, bowEncoder{})
				v := h.tornAt(k, extra, func(v *Vault) error {
					reqs := make([]StoreRequest, len(facts))
					for i, f := range facts {
						reqs[i] = StoreRequest{Text: f, Source: "from chat"}
					}
					_, err := v.StoreMany(reqs)
					return err
				})
				if whole := checkWhole(t, v, facts, k); whole != (k == frames) {
					t.Fatalf("after %d of %d frames: whole = %v", k, frames, whole)
				}
				// The vault takes the next batch where the last whole one ended.
				h.store(v, StoreRequest{Text: "the printer is on floor three"})
				if rep, _ := v.AuditVerify(); !rep.OK {
					t.Fatalf("audit after the next write: %+v", rep)
				}
			})
		}
	}
}

// TestImportBatchAllOrNothing: an import batch (records, their relation,
// the audit entries) torn at every frame boundary is stored whole or not
// at all; before, records and relations were two appends and each could
// tear on its own.
func TestImportBatchAllOrNothing(t *testing.T) {
	in := `{"id":"0123456789abcdef0123456789abcdef","text":"Max works at Northwind"}
{"text":"Northwind is in Leeds"}
{"type":"relation","subject":"Max","predicate":"works_at","object":"Northwind","src":"0123456789abcdef0123456789abcdef"}
`
	want := []string{"Max works at Northwind", "Northwind is in Leeds"}
	const frames = 6 // two records, one relation, three audit entries
	for k := 0; k <= frames; k++ {
		t.Run(fmt.Sprintf("frames=%d", k), func(t *testing.T) {
			h := newHarness(t, nil)
			v := h.tornAt(k, 0, func(v *Vault) error {
				_, err := v.Import(strings.NewReader(in), "notes", nil)
				return err
			})
			whole := checkWhole(t, v, want, k)
			if whole != (k == frames) || (len(v.st.relations) == 1) != whole {
				t.Fatalf("after %d of %d frames: whole %v, %d relations", k, frames, whole, len(v.st.relations))
			}
			// Running the import again completes it, once.
			res, err := v.Import(strings.NewReader(in), "notes", nil)
			if err != nil || v.st.records.len() != 2 || len(v.st.relations) != 1 {
				t.Fatalf("re-import: %+v %v; %d records, %d relations", res, err, v.st.records.len(), len(v.st.relations))
			}
		})
	}
}
