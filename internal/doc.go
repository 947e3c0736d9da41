// Package internal is the root of the memory domain and its surfaces. The
// subpackages hold the vault (records, namespaces, grants, search, opinions,
// expiry, relations, audit), the unlock session, the MCP server, the
// offline guard, the agent integrations (integrate), the capture of what
// agents write (capture), the typed results every surface returns (api) and
// the terminal text the CLI prints them as (render).
package internal
