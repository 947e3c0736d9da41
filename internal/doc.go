// Package internal is the root of the memory domain and its surfaces. The
// subpackages hold the vault (records, namespaces, grants, search, opinions,
// expiry, relations, audit), the unlock session, the MCP server, the
// offline guard, the agent integrations (integrate) and the capture of what
// agents write (capture).
package internal
