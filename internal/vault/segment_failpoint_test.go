//go:build failpoints

package vault

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/vaultfmt"
)

// TestSegmentCompactionCrash: a compaction that fails while writing the
// new file (segment included) leaves the vault as it was, and it opens
// with every record.
func TestSegmentCompactionCrash(t *testing.T) {
	for _, fp := range []string{vaultfmt.FailCompactMidWrite, vaultfmt.FailCompactBeforeRename, vaultfmt.FailCompactRename} {
		t.Run(fp, func(t *testing.T) {
			h := newHarness(t, bowEncoder{})
			v := h.open("user")
			importClaims(t, v, genClaims(300))
			if err := v.Flush(); err != nil {
				t.Fatal(err)
			}
			late := h.store(v, StoreRequest{Text: "The ferry timetable lives in the shared drive"})
			queries := append(segmentQueries(), "ferry timetable")
			want := ranking(t, v, queries)
			vaultfmt.SetFailpoint(fp, errors.New("injected"))
			err := v.Flush()
			vaultfmt.SetFailpoint(fp, nil)
			if err == nil {
				t.Fatal("the compaction did not fail")
			}
			v.Close()
			r := h.open("user")
			if !restoredFromSegment(r) {
				t.Errorf("the old segment was not used: %v", r.st.segErr)
			}
			if !r.st.tableUsed || r.st.tableRetry != nil {
				t.Errorf("the old record table was not used: %v / %v", r.st.tableErr, r.st.tableRetry)
			}
			recordsEqual(t, r, openFull(t, h))
			if got := ranking(t, r, queries); !slices.Equal(got, want) {
				t.Errorf("after the failed compaction:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if _, err := r.Get(late.ID); err != nil {
				t.Error(err)
			}
		})
	}
}
