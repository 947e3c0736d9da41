// Package session owns unlocking once for every process on the machine: the
// boot-bound unlock credential, noticing a lock made by another process,
// auto-lock after idle time, and the [Keeper] that long-running processes
// (the MCP server) use to hold a vault open only while it is unlocked.
//
// The master key of an unlocked vault is kept sealed in a credential file
// under a key derived from a random per-boot secret that lives only in RAM
// (a file on tmpfs) and bound to the boot id, the user, the vault's path and
// its id. Processes notice a lock by one stat of a lock stamp file before
// each call, and share the last-use time through the modification time of
// another. The files are specified in FORMAT.md section 7.
//
// It must not know about memories, ranking or MCP: it hands out master keys
// and says when to drop them.
package session
