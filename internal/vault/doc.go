// Package vault is the memory domain: records (one claim each, with source
// and dates), namespaces and grants, store/search/forget, opinions, expiry,
// relations and the audit chain. It keeps the whole vault in RAM, indexed for
// search, and writes every change through vaultfmt before acknowledging it.
package vault
