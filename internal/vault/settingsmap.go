package vault

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Map returns the settings by their JSON keys, as config get prints them
// and config set names them.
func (s Settings) Map() (map[string]any, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Get returns one setting by its JSON key; an unknown key is refused with
// the list of known ones.
func (s Settings) Get(key string) (any, error) {
	all, err := s.Map()
	if err != nil {
		return nil, err
	}
	val, ok := all[key]
	if !ok {
		return nil, fmt.Errorf("unknown setting %q: known settings are %s", key, strings.Join(slices.Sorted(maps.Keys(all)), ", "))
	}
	return val, nil
}
