package integrate

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// Env is what a client's file location depends on: the system, the home
// directory and the environment. Tests build one for each system.
type Env struct {
	GOOS     string
	Home     string
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// HostEnv is this process's environment ($HOME, never the passwd entry).
func HostEnv() Env {
	home := os.Getenv("HOME")
	if home == "" || runtime.GOOS == "windows" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv, LookPath: exec.LookPath}
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) home(parts ...string) string {
	return filepath.Join(append([]string{e.Home}, parts...)...)
}

// or returns the environment variable k when set, else def.
func (e Env) or(k, def string) string {
	if v := e.get(k); v != "" {
		return v
	}
	return def
}

// xdgConfig is $XDG_CONFIG_HOME, ~/.config by default (also used on macOS
// by the CLI tools that follow the XDG layout there).
func (e Env) xdgConfig(parts ...string) string {
	return filepath.Join(append([]string{e.or("XDG_CONFIG_HOME", e.home(".config"))}, parts...)...)
}

// appData is %APPDATA% (Windows' roaming application data).
func (e Env) appData(parts ...string) string {
	return filepath.Join(append([]string{e.or("APPDATA", e.home("AppData", "Roaming"))}, parts...)...)
}

// localAppData is %LOCALAPPDATA%.
func (e Env) localAppData(parts ...string) string {
	return filepath.Join(append([]string{e.or("LOCALAPPDATA", e.home("AppData", "Local"))}, parts...)...)
}

// appSupport is macOS's ~/Library/Application Support.
func (e Env) appSupport(parts ...string) string {
	return filepath.Join(append([]string{e.home("Library", "Application Support")}, parts...)...)
}

// desktopConfig is the per-user configuration directory of a desktop app:
// XDG on Linux, Application Support on macOS, %APPDATA% on Windows.
func (e Env) desktopConfig(parts ...string) string {
	switch e.GOOS {
	case "darwin":
		return e.appSupport(parts...)
	case "windows":
		return e.appData(parts...)
	}
	return e.xdgConfig(parts...)
}

// vscodeUser is VS Code's User directory, where its mcp.json and the
// extensions' globalStorage live.
func (e Env) vscodeUser(parts ...string) string {
	return e.desktopConfig(append([]string{"Code", "User"}, parts...)...)
}

// Client is one MCP client compartment can wire.
type Client struct {
	ID      string   // what `integrate ID` takes
	Aliases []string // other names it answers to
	Name    string   // for people
	Format  Format
	Loc     Location
	// File is where the client reads its servers; "" when it keeps them
	// somewhere compartment cannot edit (the block is printed instead).
	File func(Env) string
	// Entry is the value our entry holds, for the command line that
	// starts compartment serve.
	Entry func(command string, args []string) orderedObject
	// Binaries on PATH that mean the client is installed (besides its
	// configuration directory existing).
	Binaries []string
	// Check is the client's own command that lists its MCP servers.
	Check string
	// Skills is the client's skills directory, "" when it has none.
	Skills func(Env) string
	// Note is printed after wiring it (a restart, an extra step).
	Note string
}

func entryPlain(c string, a []string) orderedObject {
	return orderedObject{{"command", c}, {"args", a}}
}

func entryStdio(c string, a []string) orderedObject {
	return orderedObject{{"type", "stdio"}, {"command", c}, {"args", a}}
}

func entryEnabled(c string, a []string) orderedObject {
	return orderedObject{{"command", c}, {"args", a}, {"disabled", false}}
}

var mcpServers = Location{Keys: []string{"mcpServers"}, Name: Name}

// Name is our entry's name in every client.
const Name = "compartment"

// Clients is the table: one row per client, sorted by ID.
var Clients = []Client{
	{ID: "amp", Name: "Amp", Format: JSON, Loc: Location{Keys: []string{"amp.mcpServers"}, Name: Name},
		File: func(e Env) string {
			if e.GOOS == "windows" {
				return e.appData("amp", "settings.json")
			}
			return e.xdgConfig("amp", "settings.json")
		}, Entry: entryPlain, Binaries: []string{"amp"}},
	{ID: "anythingllm", Name: "AnythingLLM", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			return e.desktopConfig("anythingllm-desktop", "storage", "plugins", "anythingllm_mcp_servers.json")
		}, Entry: entryPlain},
	{ID: "augment", Name: "Augment (Auggie CLI)", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".augment", "settings.json") }, Entry: entryPlain, Binaries: []string{"auggie"}},
	{ID: "boltai", Name: "BoltAI", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			if e.GOOS != "darwin" {
				return ""
			}
			return e.home(".boltai", "mcp.json")
		}, Entry: entryPlain},
	{ID: "cherry-studio", Name: "Cherry Studio", Format: JSON, Loc: mcpServers,
		File: func(Env) string { return "" }, Entry: entryPlain,
		Note: "Cherry Studio keeps its servers in its own database: Settings > MCP Servers > Add > Import from JSON, and paste the block above."},
	{ID: "claude-code", Aliases: []string{"claude"}, Name: "Claude Code", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			if d := e.get("CLAUDE_CONFIG_DIR"); d != "" {
				return filepath.Join(d, ".claude.json")
			}
			return e.home(".claude.json")
		}, Entry: entryStdio, Binaries: []string{"claude"}, Check: "claude mcp list",
		Skills: func(e Env) string { return filepath.Join(claudeDir(e), "skills") }},
	{ID: "claude-desktop", Name: "Claude Desktop", Format: JSON, Loc: mcpServers,
		File:  func(e Env) string { return e.desktopConfig("Claude", "claude_desktop_config.json") },
		Entry: entryPlain, Note: "Quit and reopen Claude Desktop to load it."},
	{ID: "cline", Name: "Cline", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			return e.vscodeUser("globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		}, Entry: entryEnabled},
	{ID: "codex", Aliases: []string{"codex-cli"}, Name: "Codex CLI", Format: TOML, Loc: Location{Keys: []string{"mcp_servers"}, Name: Name},
		File:  func(e Env) string { return filepath.Join(e.or("CODEX_HOME", e.home(".codex")), "config.toml") },
		Entry: entryPlain, Binaries: []string{"codex"}, Check: "codex mcp list"},
	{ID: "continue", Name: "Continue", Format: YAML, Loc: Location{Keys: []string{"mcpServers"}, Name: Name, Seq: true},
		File: func(e Env) string { return e.home(".continue", "config.yaml") }, Entry: entryPlain, Binaries: []string{"cn"}},
	{ID: "copilot", Aliases: []string{"copilot-cli", "github-copilot"}, Name: "GitHub Copilot CLI", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return filepath.Join(e.or("COPILOT_HOME", e.home(".copilot")), "mcp-config.json") },
		Entry: func(c string, a []string) orderedObject {
			return orderedObject{{"type", "local"}, {"command", c}, {"args", a}, {"tools", []string{"*"}}}
		}, Binaries: []string{"copilot"}},
	{ID: "crush", Name: "Crush", Format: JSON, Loc: Location{Keys: []string{"mcp"}, Name: Name},
		File: func(e Env) string {
			if e.GOOS == "windows" {
				return e.localAppData("crush", "crush.json")
			}
			return e.xdgConfig("crush", "crush.json")
		}, Entry: entryStdio, Binaries: []string{"crush"}},
	{ID: "cursor", Name: "Cursor", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".cursor", "mcp.json") }, Entry: entryPlain, Binaries: []string{"cursor", "cursor-agent"}},
	{ID: "gemini", Aliases: []string{"gemini-cli"}, Name: "Gemini CLI", Format: JSONC, Loc: mcpServers,
		File: func(e Env) string {
			return filepath.Join(e.or("GEMINI_CLI_HOME", e.Home), ".gemini", "settings.json")
		}, Entry: entryPlain, Binaries: []string{"gemini"}, Check: "gemini mcp list"},
	{ID: "goose", Name: "Goose", Format: YAML, Loc: Location{Keys: []string{"extensions"}, Name: Name},
		File: func(e Env) string {
			if e.GOOS == "windows" {
				return e.appData("Block", "goose", "config", "config.yaml")
			}
			return e.xdgConfig("goose", "config.yaml")
		}, Entry: func(c string, a []string) orderedObject {
			return orderedObject{{"name", Name}, {"type", "stdio"}, {"cmd", c}, {"args", a}, {"enabled", true}, {"timeout", 300}}
		}, Binaries: []string{"goose"}},
	{ID: "hermes", Aliases: []string{"hermes-agent"}, Name: "Hermes Agent", Format: YAML, Loc: Location{Keys: []string{"mcp_servers"}, Name: Name},
		File:  func(e Env) string { return filepath.Join(hermesHome(e), "config.yaml") },
		Entry: entryPlain, Binaries: []string{"hermes"},
		Skills: func(e Env) string { return filepath.Join(hermesHome(e), "skills") },
		Note:   "Start a new Hermes session to load it."},
	{ID: "jan", Name: "Jan", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.desktopConfig("Jan", "data", "mcp_config.json") },
		Entry: func(c string, a []string) orderedObject {
			return orderedObject{{"command", c}, {"args", a}, {"env", orderedObject{}}, {"active", true}}
		}},
	{ID: "kilo-code", Aliases: []string{"kilo"}, Name: "Kilo Code", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			return e.vscodeUser("globalStorage", "kilocode.kilo-code", "settings", "mcp_settings.json")
		}, Entry: entryEnabled},
	{ID: "kiro", Name: "Kiro", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".kiro", "settings", "mcp.json") }, Entry: entryEnabled, Binaries: []string{"kiro"}},
	{ID: "lmstudio", Aliases: []string{"lm-studio"}, Name: "LM Studio", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".lmstudio", "mcp.json") }, Entry: entryPlain, Binaries: []string{"lms"}},
	{ID: "oh-my-pi", Aliases: []string{"omp"}, Name: "Oh My Pi", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".omp", "agent", "mcp.json") }, Entry: entryPlain, Binaries: []string{"omp"}},
	{ID: "openclaw", Name: "OpenClaw", Format: JSONC, Loc: Location{Keys: []string{"mcp", "servers"}, Name: Name},
		File: openclawConfig, Entry: entryPlain, Binaries: []string{"openclaw"}, Check: "openclaw mcp list",
		Skills: func(e Env) string { return filepath.Join(openclawState(e), "skills") },
		Note:   "Run `openclaw gateway restart` so a running gateway loads it."},
	{ID: "opencode", Name: "OpenCode", Format: JSONC, Loc: Location{Keys: []string{"mcp"}, Name: Name},
		File: func(e Env) string { return e.xdgConfig("opencode", "opencode.json") },
		Entry: func(c string, a []string) orderedObject {
			return orderedObject{{"type", "local"}, {"command", append([]string{c}, a...)}, {"enabled", true}}
		}, Binaries: []string{"opencode"}, Check: "opencode mcp list"},
	{ID: "qwen", Aliases: []string{"qwen-code"}, Name: "Qwen Code", Format: JSONC, Loc: mcpServers,
		File: func(e Env) string { return e.home(".qwen", "settings.json") }, Entry: entryPlain, Binaries: []string{"qwen"}},
	{ID: "roo-code", Aliases: []string{"roo"}, Name: "Roo Code", Format: JSON, Loc: mcpServers,
		File: func(e Env) string {
			return e.vscodeUser("globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json")
		}, Entry: entryEnabled},
	{ID: "vscode", Aliases: []string{"code", "vs-code"}, Name: "VS Code", Format: JSONC, Loc: Location{Keys: []string{"servers"}, Name: Name},
		File: func(e Env) string { return e.vscodeUser("mcp.json") }, Entry: entryStdio, Binaries: []string{"code"}},
	{ID: "windsurf", Name: "Windsurf", Format: JSON, Loc: mcpServers,
		File: func(e Env) string { return e.home(".codeium", "windsurf", "mcp_config.json") }, Entry: entryPlain, Binaries: []string{"windsurf"}},
	{ID: "zed", Name: "Zed", Format: JSONC, Loc: Location{Keys: []string{"context_servers"}, Name: Name},
		File: func(e Env) string {
			if e.GOOS == "windows" {
				return e.appData("Zed", "settings.json")
			}
			return e.xdgConfig("zed", "settings.json")
		}, Entry: entryPlain, Binaries: []string{"zed", "zeditor"}},
}

func claudeDir(e Env) string { return e.or("CLAUDE_CONFIG_DIR", e.home(".claude")) }

func hermesHome(e Env) string { return e.or("HERMES_HOME", e.home(".hermes")) }

// openclawState is OpenClaw's state directory: $OPENCLAW_STATE_DIR, else
// .openclaw under $OPENCLAW_HOME (which stands in for the home directory).
func openclawState(e Env) string {
	if d := e.get("OPENCLAW_STATE_DIR"); d != "" {
		return d
	}
	return filepath.Join(e.or("OPENCLAW_HOME", e.Home), ".openclaw")
}

func openclawConfig(e Env) string {
	if p := e.get("OPENCLAW_CONFIG_PATH"); p != "" {
		return p
	}
	return filepath.Join(openclawState(e), "openclaw.json")
}

// Find returns the client called name (its ID or an alias).
func Find(name string) (*Client, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for i := range Clients {
		c := &Clients[i]
		if c.ID == name {
			return c, true
		}
		for _, a := range c.Aliases {
			if a == name {
				return c, true
			}
		}
	}
	return nil, false
}

// IDs lists every client's ID.
func IDs() []string {
	var ids []string
	for _, c := range Clients {
		ids = append(ids, c.ID)
	}
	sort.Strings(ids)
	return ids
}

// Installed says whether the client seems to be installed here: one of its
// binaries is on PATH, or the directory of its configuration file exists.
func (c *Client) Installed(e Env) bool {
	for _, b := range c.Binaries {
		if e.LookPath != nil {
			if _, err := e.LookPath(b); err == nil {
				return true
			}
		}
	}
	f := c.File(e)
	if f == "" {
		return false
	}
	dir := filepath.Dir(f)
	if dir == e.Home || dir == "." {
		_, err := os.Stat(f)
		return err == nil
	}
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// Offerable lists, in the table's order with Claude Code, Hermes Agent and
// OpenClaw first, every client installed here that integrate can wire (it
// has a file to write) and that is not wired yet: what init offers.
func Offerable(e Env) []*Client {
	first := []string{"claude-code", "hermes", "openclaw"}
	var out, rest []*Client
	for i := range Clients {
		c := &Clients[i]
		if c.File(e) == "" || !c.Installed(e) || Wired(e, c) {
			continue
		}
		if slices.Contains(first, c.ID) {
			out = append(out, c)
		} else {
			rest = append(rest, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *Client) int { return slices.Index(first, a.ID) - slices.Index(first, b.ID) })
	return append(out, rest...)
}
