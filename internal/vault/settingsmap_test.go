package vault

import (
	"strings"
	"testing"
)

// TestSettingsMapAndGet: every setting is there by the key config set
// takes, with its value, and an unknown key names the known ones.
func TestSettingsMapAndGet(t *testing.T) {
	s := DefaultConfig().Settings
	s.MaxMemoryChars = 321
	all, err := s.Map()
	if err != nil {
		t.Fatal(err)
	}
	if all["max_memory_chars"] != float64(321) || all["expire_memories"] != s.ExpireMemories {
		t.Errorf("Map: max_memory_chars %v, expire_memories %v", all["max_memory_chars"], all["expire_memories"])
	}
	c := DefaultConfig()
	for k := range all {
		if _, err := s.Get(k); err != nil {
			t.Errorf("Get(%q): %v", k, err)
		}
		if strings.HasPrefix(k, "max_memory_chars") {
			if err := c.SetSetting(k, "300"); err != nil {
				t.Errorf("a key Map gives is not one SetSetting takes: %q: %v", k, err)
			}
		}
	}
	_, err = s.Get("max_memory_char")
	if err == nil || !strings.Contains(err.Error(), `unknown setting "max_memory_char": known settings are `) || !strings.Contains(err.Error(), "max_memory_chars") {
		t.Errorf("unknown key: %v", err)
	}
}
