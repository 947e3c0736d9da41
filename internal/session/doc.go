// Package session owns unlocking once for every process on the machine: the
// boot-bound unlock credential, noticing a lock made by another process,
// auto-lock after idle time, and the Keeper that long-running processes (the
// MCP server) use to hold a vault open only while it is unlocked.
package session
