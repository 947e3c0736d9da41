// Package vaultfmt owns the bytes of a vault file: the plaintext header, the
// LUKS-style key slots, sealing with XChaCha20-Poly1305, the append-only
// journal of sealed frames, compaction, per-item keys and shredding, and the
// signed manifest. FORMAT.md at the repository root (section 2) specifies
// every byte; testdata/golden.* hold the worked example a test keeps true.
//
// It stores opaque items (an id, a caller-chosen kind and a body) and knows
// nothing about memories, ranking or MCP.
//
// Processes share a vault through an advisory flock on <path>.lock: shared
// while reading (open, refresh), exclusive while writing (append, compact).
// Every write first catches up with what other processes wrote, feeding it
// to the caller's [Handler]; an acknowledged [Vault.Append] has been
// fsynced, and a failed one leaves the file byte-for-byte as it was. Damage
// is reported as [ErrCorrupt] (a [*CorruptError] says where); a crash-torn
// last frame is dropped and reported by [Vault.Torn].
package vaultfmt
