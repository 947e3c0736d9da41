package integrate

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DocTable is the table docs/INTEGRATIONS.md shows: each client, its file
// on Linux, macOS and Windows, its format and the key our entry goes
// under. A test keeps the document equal to it.
func DocTable() string {
	var b strings.Builder
	b.WriteString("| client | `integrate` name | Linux | macOS | Windows | format | key | check |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for i := range Clients {
		c := &Clients[i]
		cells := []string{c.Name, "`" + c.ID + "`"}
		for _, goos := range []string{"linux", "darwin", "windows"} {
			cells = append(cells, docPath(c, goos))
		}
		key := strings.Join(c.Loc.Keys, " → ")
		if c.Format == TOML {
			key = "`[" + strings.Join(append(append([]string(nil), c.Loc.Keys...), Name), ".") + "]`"
		} else if c.Loc.Seq {
			key = "`" + key + "` (list item `name: " + Name + "`)"
		} else {
			key = "`" + key + " → " + Name + "`"
		}
		check := ""
		if c.Check != "" {
			check = "`" + c.Check + "`"
		}
		cells = append(cells, c.Format.String(), key, check)
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	return b.String()
}

// docPath is a client's file on one system, written with ~ and the
// variables that move it.
func docPath(c *Client, goos string) string {
	vars := map[string]string{
		"XDG_CONFIG_HOME": "$XDG_CONFIG_HOME", "APPDATA": "%APPDATA%", "LOCALAPPDATA": "%LOCALAPPDATA%",
	}
	e := Env{GOOS: goos, Home: "~", Getenv: func(k string) string { return vars[k] }}
	if goos != "windows" {
		delete(vars, "APPDATA")
		delete(vars, "LOCALAPPDATA")
	}
	if goos == "darwin" {
		vars["XDG_CONFIG_HOME"] = "~/.config"
	}
	p := c.File(e)
	if p == "" {
		return "(none: paste the block)"
	}
	p = filepath.ToSlash(p)
	if goos == "windows" {
		p = strings.ReplaceAll(p, "/", `\`)
	}
	return "`" + p + "`"
}
