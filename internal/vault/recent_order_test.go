package vault

import "testing"

// TestRecentOrder: the newest memories in either order, the same ones:
// oldest first by default (memory_recent), newest first on request (the
// CLI, dashboard and panel), the limit keeping the newest in both.
func TestRecentOrder(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	var ids []string
	for _, text := range []string{"Ana keeps bees on the roof", "Ben repairs clocks on Fridays", "Caro sails a red dinghy"} {
		ids = append(ids, h.store(v, StoreRequest{Text: text}).ID)
	}
	got := func(newest bool) []string {
		rs, err := v.Recent(RecentRequest{Limit: 2, NewestFirst: newest})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if o := got(false); len(o) != 2 || o[0] != ids[1] || o[1] != ids[2] {
		t.Errorf("oldest first: %v, want %v", o, ids[1:])
	}
	if n := got(true); len(n) != 2 || n[0] != ids[2] || n[1] != ids[1] {
		t.Errorf("newest first: %v, want [%s %s]", n, ids[2], ids[1])
	}
}
