package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compartment/compartment/embed"
)

// Settings are the knobs in <vault>.config.json. Every field has a default;
// a missing key means the default.
type Settings struct {
	MaxMemoryChars int `json:"max_memory_chars"` // 0 disables the one-claim check
	// The three similarity settings are cosines of the loaded model; 0
	// (the default) takes them from the model's calibration. A store folds
	// only when the literal check agrees as well (decide.go).
	DuplicateThreshold       float64 `json:"duplicate_threshold"`        // cosine from which a store may return the existing id
	OpinionUpdateThreshold   float64 `json:"opinion_update_threshold"`   // cosine from which an opinion conflicts
	OpinionReaffirmThreshold float64 `json:"opinion_reaffirm_threshold"` // cosine from which an opinion may be a restatement
	ExpireMemories           bool    `json:"expire_memories"`            // sweep expired memories on open and hourly
	IncludeReferenceInSearch bool    `json:"include_reference_in_search"`
	IncludePacksInSearch     bool    `json:"include_packs_in_search"`
	UnlockToolEnabled        bool    `json:"unlock_tool_enabled"` // memory_unlock accepts a passphrase
	AutoLockMinutes          int     `json:"auto_lock_minutes"`   // 0 = never
	HNSWThreshold            int     `json:"hnsw_threshold"`      // records at which search moves to HNSW
	Int8Vectors              bool    `json:"int8_vectors"`        // store vectors int8-quantised
	Model                    string  `json:"model"`               // embedding model name or path; "" = default

	// The retag pass (retag.go).
	RetagIntervalHours int  `json:"retag_interval_hours"` // background pass while serving; 0 = off
	RetagPrune         bool `json:"retag_prune"`          // it also removes inferred tags nothing supports
}

// DefaultSettings are what a new vault starts with.
func DefaultSettings() Settings {
	return Settings{
		MaxMemoryChars:           200,
		ExpireMemories:           true,
		IncludeReferenceInSearch: true,
		IncludePacksInSearch:     true,
		UnlockToolEnabled:        false,
		AutoLockMinutes:          30,
		HNSWThreshold:            20000,
		Int8Vectors:              true,

		RetagIntervalHours: 6,
	}
}

// Access is a grant level.
type Access string

const (
	AccessRW   Access = "rw"
	AccessRO   Access = "ro"
	AccessNone Access = "none"
)

// Config is the plaintext sidecar <vault>.config.json: settings, grants per
// caller and namespace, and each caller's default namespace. It holds no
// secret.
type Config struct {
	Settings Settings `json:"settings"`
	// Grants maps caller (or "*") to namespace pattern ("ns", "prefix/*" or
	// "*") to access. The most specific caller, then the most specific
	// pattern, wins.
	Grants map[string]map[string]Access `json:"grants"`
	// DefaultNamespaces maps caller to the namespace its stores go to when
	// none is given; unlisted callers use their own name ("user" uses
	// "main").
	DefaultNamespaces map[string]string `json:"default_namespaces,omitempty"`
	// KeyfilePath is where the keyfile of a vault with two-factor unlock
	// was last used, so unlocking finds it without --keyfile. It names a
	// file; it is not the secret.
	KeyfilePath string `json:"keyfile_path,omitempty"`
}

// ConfigPath is where the config of the vault at vaultPath lives.
func ConfigPath(vaultPath string) string { return vaultPath + ".config.json" }

// DefaultConfig grants every caller read and write on every namespace.
func DefaultConfig() *Config {
	return &Config{
		Settings: DefaultSettings(),
		Grants:   map[string]map[string]Access{"*": {"*": AccessRW}},
	}
}

// LoadConfig reads the config beside the vault; a missing file is the
// default config. Invalid values are refused with a message naming the key.
func LoadConfig(vaultPath string) (*Config, error) {
	path := ConfigPath(vaultPath)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	cfg := DefaultConfig()
	cfg.Grants = nil
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if cfg.Grants == nil {
		cfg.Grants = DefaultConfig().Grants
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Save writes the config atomically (tmp, fsync, rename).
func (c *Config) Save(vaultPath string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(ConfigPath(vaultPath), append(data, '\n'), 0o600)
}

// Validate refuses values outside their range, naming the key and what is
// allowed.
func (c *Config) Validate() error {
	s := c.Settings
	unit := func(key string, v float64) error {
		if v < 0 || v > 1 {
			return invalidf("setting %s = %v: allowed values are 0 to 1", key, v)
		}
		return nil
	}
	if s.MaxMemoryChars < 0 {
		return invalidf("setting max_memory_chars = %d: allowed values are 0 (no limit) or a positive number of characters", s.MaxMemoryChars)
	}
	for key, v := range map[string]float64{
		"duplicate_threshold":        s.DuplicateThreshold,
		"opinion_update_threshold":   s.OpinionUpdateThreshold,
		"opinion_reaffirm_threshold": s.OpinionReaffirmThreshold,
	} {
		if err := unit(key, v); err != nil {
			return err
		}
	}
	if s.AutoLockMinutes < 0 {
		return invalidf("setting auto_lock_minutes = %d: allowed values are 0 (never) or a number of minutes", s.AutoLockMinutes)
	}
	if s.RetagIntervalHours < 0 {
		return invalidf("setting retag_interval_hours = %d: allowed values are 0 (off) or a number of hours", s.RetagIntervalHours)
	}
	if s.HNSWThreshold < 0 {
		return invalidf("setting hnsw_threshold = %d: allowed values are 0 (default) or a number of records", s.HNSWThreshold)
	}
	for caller, table := range c.Grants {
		if caller == "" {
			return invalidf("grants: empty caller name: use \"*\" for every caller")
		}
		for pattern, access := range table {
			if pattern == "" {
				return invalidf("grants[%q]: empty namespace pattern: use \"*\" for every namespace", caller)
			}
			switch access {
			case AccessRW, AccessRO, AccessNone:
			default:
				return invalidf("grants[%q][%q] = %q: allowed values are rw, ro, none", caller, pattern, access)
			}
		}
	}
	return nil
}

// SetSetting changes one setting by its JSON key, parsing value, and
// refuses unknown keys and out-of-range values.
func (c *Config) SetSetting(key, value string) error {
	raw, err := json.Marshal(c.Settings)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if _, ok := m[key]; !ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return invalidf("unknown setting %q: known settings are %s", key, strings.Join(keys, ", "))
	}
	if !json.Valid([]byte(value)) {
		value = fmt.Sprintf("%q", value)
	}
	m[key] = json.RawMessage(value)
	raw, _ = json.Marshal(m)
	next := c.Settings
	if err := json.Unmarshal(raw, &next); err != nil {
		// The decoder's message names Go types; say what the setting takes.
		want := "a different kind of value"
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if w, ok := map[string]string{"int": "a whole number", "float64": "a number", "bool": "true or false", "string": "text"}[te.Type.String()]; ok {
				want = w
			}
		}
		return invalidf("setting %s takes %s, not %s", key, want, value)
	}
	old := c.Settings
	c.Settings = next
	if err := c.Validate(); err != nil {
		c.Settings = old
		return err
	}
	if key == "model" && next.Model != "" {
		if err := embed.Resolve(embed.LoadOptions{Name: next.Model}); err != nil {
			c.Settings = old
			return invalidf("setting model = %q is refused: %v", next.Model, err)
		}
	}
	return nil
}

// Access returns what caller may do in namespace. packs/* is never
// writable. An unknown caller gets what "*" says; with no matching rule the
// answer is none (fail closed).
func (c *Config) Access(caller, namespace string) Access {
	a := c.lookup(caller, namespace)
	if lower := strings.ToLower(namespace); a == AccessRW && (lower == "packs" || strings.HasPrefix(lower, "packs/")) {
		return AccessRO
	}
	return a
}

// ReadsSomething reports whether caller may read at least one namespace:
// the rule for the tools that touch the whole vault (status, self-test,
// lock). It tries one namespace for every pattern in the caller's and
// "*"'s grants, and one that no pattern names.
func (c *Config) ReadsSomething(caller string) bool {
	probes := []string{"\x00unlisted"}
	for _, who := range []string{caller, "*"} {
		for pattern := range c.Grants[who] {
			prefix, _ := strings.CutSuffix(pattern, "/*")
			probes = append(probes, pattern, prefix, prefix+"/\x00unlisted")
		}
	}
	for _, ns := range probes {
		if a := c.lookup(caller, ns); a == AccessRW || a == AccessRO {
			return true
		}
	}
	return false
}

// CheckReadsSomething is the one rule for the commands and tools that act
// on the whole vault (status, self-test, lock), for the CLI's --caller and
// the MCP server's caller alike: a caller that may read no namespace is
// refused with ErrDenied. The settings are read fresh from beside the
// vault at path: it may be locked, and the user may have just changed the
// grants.
func CheckReadsSomething(path, caller, what string) error {
	cfg, err := LoadConfig(path)
	if err != nil {
		return err
	}
	if !cfg.ReadsSomething(caller) {
		return fmt.Errorf("%w: caller %q may read no namespace, and %s needs read access to at least one (grants are in %s)",
			ErrDenied, caller, what, ConfigPath(path))
	}
	return nil
}

func (c *Config) lookup(caller, namespace string) Access {
	if caller == "" {
		return AccessNone
	}
	for _, who := range []string{caller, "*"} {
		table, ok := c.Grants[who]
		if !ok {
			continue
		}
		if a, ok := bestPattern(table, namespace); ok {
			return a
		}
	}
	return AccessNone
}

// bestPattern finds the most specific pattern matching namespace: the exact
// name, then the longest "prefix/*", then "*".
func bestPattern(table map[string]Access, namespace string) (Access, bool) {
	if a, ok := table[namespace]; ok {
		return a, true
	}
	best, bestLen := Access(""), -1
	for pattern, a := range table {
		prefix, ok := strings.CutSuffix(pattern, "/*")
		if !ok || pattern == "*" {
			continue
		}
		if (namespace == prefix || strings.HasPrefix(namespace, prefix+"/")) && len(prefix) > bestLen {
			best, bestLen = a, len(prefix)
		}
	}
	if bestLen >= 0 {
		return best, true
	}
	if a, ok := table["*"]; ok {
		return a, true
	}
	return "", false
}

// DefaultNamespace is where caller's stores go when no namespace is given.
func (c *Config) DefaultNamespace(caller string) string {
	if ns, ok := c.DefaultNamespaces[caller]; ok && ns != "" {
		return ns
	}
	if caller == "" || caller == "user" {
		return "main"
	}
	return caller
}

// writeFileAtomic writes data to path through a tmp file, fsync and rename,
// then fsyncs the directory, so a crash leaves the old or the new file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
