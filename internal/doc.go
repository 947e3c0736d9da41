// Package internal is the root of the memory domain and its surfaces. The
// subpackages hold the vault (records, namespaces, grants, search, opinions,
// expiry, relations, audit), the unlock session, the MCP server, the
// offline guard, the agent integrations (integrate), the capture of what
// agents write (capture), the typed results every surface returns (api) and
// the terminal text the CLI prints them as (render). Three packages serve
// tests only: hermetic (a test run free of the user's COMPARTMENT_*
// variables), testbin (the CLI built once per test run) and
// render/rendertest (hostile text and the check that none of it reaches a
// terminal raw).
package internal
