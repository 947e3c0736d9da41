package vault

import "testing"

// TestReindexSavesTheModelSetting: the model (and storage) named for a
// reindex is saved once it succeeded; a plain reindex leaves the settings.
func TestReindexSavesTheModelSetting(t *testing.T) {
	h := newHarness(t, bowEncoder{})
	v := h.open("user")
	h.store(v, StoreRequest{Text: "Ana keeps bees on the roof"})
	before, err := LoadConfig(h.path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Reindex(ReindexOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := LoadConfig(h.path); cfg.Settings.Model != before.Settings.Model || cfg.Settings.Int8Vectors != before.Settings.Int8Vectors {
		t.Fatalf("a plain reindex changed the settings: %+v", cfg.Settings)
	}
	f32 := !before.Settings.Int8Vectors
	if n, err := v.Reindex(ReindexOptions{All: true, Model: "bow-test", Int8: &f32}); err != nil || n != 1 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	cfg, err := LoadConfig(h.path)
	if err != nil || cfg.Settings.Model != "bow-test" || cfg.Settings.Int8Vectors != f32 {
		t.Fatalf("after a switch: %+v %v", cfg.Settings, err)
	}
}
