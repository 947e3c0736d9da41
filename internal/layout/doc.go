// Package layout holds no code: its test keeps the package map of
// DESIGN.md true. Imports point downward only,
//
//	cmd, bench → internal → {rank, embed, fts, ann, vaultfmt} → simd
//
// and nothing but a command imports a command.
package layout
