// Package mcp is compartment's MCP stdio server: the fourteen memory_* tools
// agents call, their descriptions, schemas and annotations, the handshake
// instructions, and the hourly expiry sweep while serving.
//
// It is a thin surface over [vault.Vault]: every rule (one claim per memory,
// opinions, grants, expiry, the relevance cut) lives in internal/vault, and
// this package only turns tool arguments into vault calls and vault results
// into structured tool results. The vault is taken from a [session.Keeper]
// on every call and never cached here, so a lock made by another process
// takes effect on the next call.
//
// The caller identity (grants, default namespace) comes from the --caller
// flag of `compartment serve` only. The clientInfo.name a client sends in the
// handshake is self-declared, differs between versions of the same client and
// would silently move an agent between grant tables, so it is logged but
// never used for access.
//
// Nothing but protocol is written to the output stream; logs go to the
// logger given in [Options] (stderr in the CLI).
package mcp
