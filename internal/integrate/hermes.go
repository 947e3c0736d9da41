package integrate

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// Hermes Agent's memory provider: a Python plugin in
// $HERMES_HOME/plugins/compartment/ (Hermes' user-installed provider
// directory: __init__.py with a MemoryProvider and register(ctx),
// plugin.yaml), selected by memory.provider in $HERMES_HOME/config.yaml.
// It recalls before every turn and captures after it through the CLI,
// where the MCP entry only works when the model calls a tool.

//go:embed hermes/__init__.py.tmpl
var hermesProviderTmpl string

//go:embed hermes/plugin.yaml
var hermesPluginYAML []byte

// Kinds of the provider's writes, as the state file names them.
const (
	KindHermesPlugin   = "hermes-plugin"   // a file of the provider plugin
	KindHermesProvider = "memory-provider" // memory.provider in Hermes' config.yaml
)

// HermesPluginDir is where the provider plugin goes.
func HermesPluginDir(e Env) string { return filepath.Join(hermesHome(e), "plugins", Name) }

// hermesProviderPy is the plugin's __init__.py for the server's command
// line (the binary and its global flags; the plugin adds the subcommand).
func hermesProviderPy(s Server, c *Client) []byte {
	args := s.Args(c)
	argv, _ := json.Marshal(append([]string{s.Command}, args[:len(args)-1]...)) // without "serve"
	return []byte(strings.Replace(hermesProviderTmpl, "__COMMAND__", string(argv), 1))
}

var memoryProvider = yamlEntry{key: "memory", name: "provider"}

// InstallHermesProvider writes the provider plugin and selects it in
// Hermes' config.yaml. Another provider the user selected is not replaced
// without opt.Force.
func InstallHermesProvider(e Env, st *State, s Server, opt Options) ([]Change, error) {
	c, _ := Find("hermes")
	dir := HermesPluginDir(e)
	var out []Change
	for _, f := range []struct {
		name    string
		content []byte
	}{{"__init__.py", hermesProviderPy(s, c)}, {"plugin.yaml", hermesPluginYAML}} {
		ch, err := st.put(KindHermesPlugin, c.ID, filepath.Join(dir, f.name), f.content, opt.DryRun)
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	path := c.File(e)
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return out, fmt.Errorf("integrate: read %s: %w", path, err)
	}
	if cur := hermesSelected(src); cur != "" && cur != Name && !opt.Force {
		return out, fmt.Errorf("%s selects the memory provider %q, so compartment's was installed but not selected; "+
			"run `compartment integrate hermes --force` to select it (uninstall selects none again), or `hermes memory setup compartment`", path, cur)
	}
	edited, err := yamlSetScalar(src, memoryProvider, Name)
	if err != nil {
		return out, fmt.Errorf("%s was left untouched: %s; set memory.provider to %s by hand", path, reason(err), Name)
	}
	ch, err := st.put(KindHermesProvider, c.ID, path, edited, opt.DryRun)
	return append(out, ch), err
}

// hermesSelected is memory.provider in a Hermes config.yaml ("" when unset
// or unreadable).
func hermesSelected(src []byte) string {
	v, err := yamlValue(src)
	if err != nil {
		return ""
	}
	root, _ := normalize(v).(map[string]any)
	mem, _ := root["memory"].(map[string]any)
	p, _ := mem["provider"].(string)
	return p
}

// yamlSetScalar sets key.name to a plain string value, every other byte
// kept, and checks that nothing else changed.
func yamlSetScalar(src []byte, e yamlEntry, value string) ([]byte, error) {
	before, err := yamlValue(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
	}
	d, err := parseYAML(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
	}
	if at, ok := d.emptyFlow(e.key); ok {
		return yamlSetScalar(splice(src, at, at+2, ""), e, value)
	}
	parent, parentKey, limit, from, to, found, err := d.extent(e)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnparsable, err)
	}
	line := yamlKey(e.name) + ": " + quoteJSON(value)
	var out []byte
	switch {
	case found:
		out = splice(src, from, to, lineIndent(src, from)+line)
	case parent != nil:
		ind := strings.Repeat(" ", parent.Content[0].Column-1)
		at := d.lastContent(parentKey.Line, limit)
		out = splice(src, at, at, "\n"+ind+line)
	case parentKey != nil:
		at := lineEnd(src, d.off(parentKey.Line))
		out = splice(src, at, at, "\n"+strings.Repeat(" ", parentKey.Column-1)+"  "+line)
	default:
		block := yamlKey(e.key) + ":\n  " + line + "\n"
		switch {
		case len(bytes.TrimSpace(src)) == 0:
			out = []byte(block)
		case bytes.HasSuffix(src, []byte("\n")):
			out = append(append([]byte(nil), src...), block...)
		default:
			out = append(append(append([]byte(nil), src...), '\n'), block...)
		}
	}
	after, err := yamlValue(out)
	if err != nil {
		return nil, fmt.Errorf("%w: the edited text would not parse (%v); nothing was written", ErrUnparsable, err)
	}
	want, _ := normalize(before).(map[string]any)
	if want == nil {
		want = map[string]any{}
	}
	mem, _ := want[e.key].(map[string]any)
	if mem == nil {
		mem = map[string]any{}
	}
	mem[e.name] = value
	want[e.key] = mem
	if !reflect.DeepEqual(normalize(after), any(want)) {
		return nil, fmt.Errorf("%w: the edit would change more than memory.provider; nothing was written", ErrUnparsable)
	}
	return out, nil
}

// stripHermesProvider takes memory.provider out when it still selects
// compartment (a provider the user chose since is theirs).
func stripHermesProvider(cur []byte) ([]byte, error) {
	if hermesSelected(cur) != Name {
		return cur, nil
	}
	out, _ := yamlDelete(cur, memoryProvider)
	return out, nil
}
