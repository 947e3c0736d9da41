package bench

import (
	"path/filepath"
	"testing"
)

// TestCacheDirFor: "none" never keeps the vault, a directory given is
// used as is, a small vault is thrown away unless a rebuild is asked,
// and a large one is kept in the user cache directory.
func TestCacheDirFor(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	kept := filepath.Join(cache, "compartment", "bench")
	for _, c := range []struct {
		flag    string
		records int
		rebuild bool
		want    string
	}{
		{"none", 1000000, true, ""},
		{"/tmp/x", 10, false, "/tmp/x"},
		{"", 20000, false, ""},
		{"", 20000, true, kept},
		{"", KeepFrom, false, kept},
	} {
		if got, err := CacheDirFor(c.flag, c.records, c.rebuild); err != nil || got != c.want {
			t.Errorf("CacheDirFor(%q, %d, %v) = %q, %v; want %q", c.flag, c.records, c.rebuild, got, err, c.want)
		}
	}
}
