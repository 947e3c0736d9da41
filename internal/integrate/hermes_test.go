package integrate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// hermesConfig is a Hermes Agent config.yaml as `hermes setup` writes one:
// a model, the built-in memory settings, a terminal and another MCP server.
const hermesConfig = `model:
  default: anthropic/claude-opus-4.6
  provider: openrouter
memory:
  memory_enabled: true
  user_profile_enabled: true
  memory_char_limit: 2200
terminal:
  backend: local
  timeout: 180
mcp_servers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
`

// integrate hermes installs the memory provider as Hermes loads one: a
// directory under $HERMES_HOME/plugins whose __init__.py holds a
// MemoryProvider and register(ctx), selected by memory.provider; every
// other setting stays, and uninstall gives the file back byte for byte.
func TestHermesMemoryProvider(t *testing.T) {
	e := testEnv(t)
	c, _ := Find("hermes")
	path := c.File(e)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(hermesConfig), 0o600)
	st, _ := LoadState(e)
	srv := Server{Command: "/usr/local/bin/compartment", Vault: "/home/u/work.vault"}
	if _, err := Wire(e, st, c, srv, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHermesProvider(e, st, srv, Options{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var cfg struct {
		Memory     map[string]any `yaml:"memory"`
		Model      map[string]any `yaml:"model"`
		MCPServers map[string]struct {
			Command string   `yaml:"command"`
			Args    []string `yaml:"args"`
		} `yaml:"mcp_servers"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("config.yaml no longer parses: %v\n%s", err, b)
	}
	if cfg.Memory["provider"] != "compartment" || cfg.Memory["memory_enabled"] != true || cfg.Memory["memory_char_limit"] != 2200 {
		t.Fatalf("memory: %v\n%s", cfg.Memory, b)
	}
	if cfg.Model["provider"] != "openrouter" || cfg.MCPServers["github"].Command != "npx" || cfg.MCPServers["compartment"].Command != srv.Command {
		t.Fatalf("other settings changed or our server missing:\n%s", b)
	}
	assertKeepsLines(t, []byte(hermesConfig), b)
	dir := HermesPluginDir(e)
	py, err := os.ReadFile(filepath.Join(dir, "__init__.py"))
	if err != nil {
		t.Fatal(err)
	}
	// Hermes' discovery reads the file for these words before importing.
	for _, want := range []string{"register_memory_provider", "MemoryProvider", "def register(ctx)", "from agent.memory_provider import MemoryProvider"} {
		if !strings.Contains(string(py), want) {
			t.Errorf("__init__.py lacks %q", want)
		}
	}
	m := regexp.MustCompile(`(?m)^COMMAND = (.*)$`).FindSubmatch(py)
	var argv []string
	if m == nil || json.Unmarshal(m[1], &argv) != nil || strings.Join(argv, " ") != "/usr/local/bin/compartment --caller hermes --vault /home/u/work.vault" {
		t.Fatalf("COMMAND line %q", m)
	}
	var meta struct{ Name, Description string }
	if y, _ := os.ReadFile(filepath.Join(dir, "plugin.yaml")); yaml.Unmarshal(y, &meta) != nil || meta.Name != "compartment" || meta.Description == "" {
		t.Fatalf("plugin.yaml: %+v", meta)
	}
	// Again: nothing changes.
	chs, err := InstallHermesProvider(e, st, srv, Options{})
	for _, ch := range chs {
		if err != nil || ch.Action != "unchanged" {
			t.Fatalf("second install: %+v %v", chs, err)
		}
	}
	// Uninstall (newest first): byte for byte.
	st2, _ := LoadState(e)
	if _, err := Uninstall(e, st2, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != hermesConfig {
		t.Fatalf("after uninstall config.yaml is\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "__init__.py")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the plugin is still there after uninstall")
	}
}

// A memory provider the user selected is not replaced without --force.
func TestHermesKeepsUsersProvider(t *testing.T) {
	e := testEnv(t)
	c, _ := Find("hermes")
	path := c.File(e)
	os.MkdirAll(filepath.Dir(path), 0o700)
	mine := "memory:\n  provider: honcho\n"
	os.WriteFile(path, []byte(mine), 0o600)
	st, _ := LoadState(e)
	_, err := InstallHermesProvider(e, st, Server{Command: "compartment"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `"honcho"`) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("over the user's provider: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != mine {
		t.Fatal("the user's provider was replaced")
	}
	if _, err := InstallHermesProvider(e, st, Server{Command: "compartment"}, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); hermesSelected(b) != Name {
		t.Fatalf("--force did not select it:\n%s", b)
	}
}

// yamlSetScalar on the shapes a config.yaml takes.
func TestYAMLSetScalar(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "memory:\n  provider: \"compartment\"\n",
		"model: x\n":                      "model: x\nmemory:\n  provider: \"compartment\"\n",
		"memory:\n":                       "memory:\n  provider: \"compartment\"\n",
		"memory: {}\n":                    "memory: \n  provider: \"compartment\"\n",
		"memory:\n    a: 1\n":             "memory:\n    a: 1\n    provider: \"compartment\"\n",
		"memory:\n  provider: builtin\n":  "memory:\n  provider: \"compartment\"\n",
		"memory:\n  provider: x # mine\n": "memory:\n  provider: \"compartment\"\n",
	} {
		got, err := yamlSetScalar([]byte(in), memoryProvider, Name)
		if err != nil || string(got) != want {
			t.Errorf("%q: got %q (%v), want %q", in, got, err, want)
		}
	}
	if _, err := yamlSetScalar([]byte("memory: [1, 2]\n"), memoryProvider, Name); !errors.Is(err, ErrUnparsable) {
		t.Errorf("a list under memory: %v", err)
	}
}
