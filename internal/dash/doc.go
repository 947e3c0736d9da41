// Package dash is the read-only browser dashboard (`compartment dash`):
// an HTTP server on 127.0.0.1 that shows one vault through the same read
// API as the CLI — counts and growth, live search with its explanation, one
// memory with its provenance, supersede chain, relations and audit
// entries, the relation graph, tags and the audit chain's state.
//
// It owns the HTTP surface and its guard: the loopback bind, the Host
// check against DNS rebinding, the one-time URL token exchanged for a
// session cookie, GET and HEAD only, and headers that keep the pages from
// loading anything outside their own origin. Every asset (templates, CSS,
// JavaScript) is embedded in the binary. Memories are untrusted text: the
// server escapes them (html/template) and the scripts only ever set
// textContent.
//
// It sees the vault only through [Reader], a set of read methods, so no
// write is reachable from here; the command opens the vault read-only as
// well. It must not know about encryption, files or MCP.
package dash
