// Package integrate wires MCP clients to compartment: one table of clients
// (where each keeps its configuration on Linux, macOS and Windows, in which
// format, under which key), an editor per format that adds, replaces or
// removes our one entry while keeping every other byte the user wrote, and
// the bookkeeping that makes each write undoable: a byte-exact backup
// first, an atomic replace, and a state file recording what was ours.
//
// It also owns the other files `compartment integrate` writes for Claude
// Code, Hermes Agent and OpenClaw: the capture hook in Claude Code's
// settings, the /compartmentalize skill, and the managed block in CLAUDE.md.
//
// It knows nothing about vaults: the command line that starts the server
// is handed to it.
package integrate
