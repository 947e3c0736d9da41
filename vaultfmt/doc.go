// Package vaultfmt owns the bytes of a vault file: the plaintext header, the
// LUKS-style key slots, sealing with XChaCha20-Poly1305, the append-only
// journal of sealed frames, compaction, per-item keys and shredding, and the
// signed manifest. FORMAT.md at the repository root specifies every byte.
//
// It stores opaque items (an id, a caller-chosen kind and a body) and knows
// nothing about memories, ranking or MCP.
package vaultfmt
