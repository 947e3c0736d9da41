// Package api is the shape of what the surfaces return: one typed result
// per operation, built from the vault's (and the session's) values, that
// the CLI's --json, the MCP server's tools and the panel (which reads the
// CLI's --json) all use, so an agent, a script and the panel read the same
// fields: search (Answer), store (Store), a memory as the tools return it
// (Memory), forget, unlink, status, unlock and two-factor unlock, and the
// CLI's other results (upkeep.go). It knows
// those types and JSON, nothing of transport, printing or I/O.
//
// `get` and `recent --json` print the vault's own [vault.Record] (the
// claim without its provenance clause, write order, origin of the tags),
// which scripts and tests read; memory_get and memory_recent return
// [Memory]. The two are kept apart on purpose: changing either would change
// what its readers get under the same field names.
package api
