// Package api is the shape of what the surfaces return: one typed search
// result that the MCP server's memory_search and the CLI's `search --json`
// both render, so an agent and a script read the same fields. It knows
// the vault's types and JSON, nothing of transport or printing.
package api
