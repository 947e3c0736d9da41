package mcp

import (
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
)

// The server's memory policy (GOGC, a soft memory limit, handing an
// open's garbage back) is the vault's to decide, from what the vault
// holds: see [vault.SettleServerMemory]. These are its call sites here.

// tuneMemory takes the server's memory policy and keeps the bundled
// model's resident pages to the rows in use (embed.KeepStaticModelSmall).
func tuneMemory() {
	vault.TuneServerMemory()
	embed.KeepStaticModelSmall()
}

// releaseOpenGarbage hands the memory an open used and no longer needs
// back to the OS at once and bounds the heap's growth from the live heap
// the open built.
func releaseOpenGarbage() { vault.SettleServerMemory() }

// setMemoryLimit moves the soft memory limit after a call that may have
// grown the live heap.
func setMemoryLimit() { vault.FollowServerHeap() }
