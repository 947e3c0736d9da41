package api

import "github.com/compartment/compartment/internal/vault"

// The shapes below are the --json of the CLI's remaining commands, which
// printed maps before. Their fields are in the order the maps printed
// (by name), so the bytes are the same.

// Created is `init --json`: the new vault and whether init's unlock
// session holds it open.
type Created struct {
	Model    string `json:"model"` // the pinned embedding model ("" for none)
	Path     string `json:"path"`
	Unlocked bool   `json:"unlocked"`
	VaultID  string `json:"vault_id"`
}

// Locked is `lock --json`.
type Locked struct {
	Flushed bool   `json:"flushed"` // the vault was open here and compacted before the lock
	Locked  bool   `json:"locked"`  // always true: an error is returned otherwise
	Signed  bool   `json:"signed"`
	Signer  string `json:"signer"` // the identity key's fingerprint ("" unsigned)
}

// KeychainUnlocked is `unlock --keychain --json`.
type KeychainUnlocked struct {
	Keychain bool `json:"keychain"` // always true: the key is in the login keychain
	Unlocked bool `json:"unlocked"`
}

// Expired is `expire --json`: the memories the sweep removed.
type Expired struct {
	Count   int      `json:"count"`
	Expired []string `json:"expired"` // never null
}

// AuditRepaired is `audit repair --json`.
type AuditRepaired struct {
	Repaired bool              `json:"repaired"` // false: the chain was intact, nothing was written
	Report   vault.AuditReport `json:"report"`   // the chain after the repair
}

// PackInstalled is `pack install --json`.
type PackInstalled struct {
	Author    string           `json:"author"` // the signing key's fingerprint
	Name      string           `json:"name"`
	Namespace string           `json:"namespace"` // where its memories live
	Result    vault.BulkResult `json:"result"`
	Version   string           `json:"version"`
}

// PackList is `pack list --json`.
type PackList struct {
	IncludePacksInSearch bool             `json:"include_packs_in_search"`
	Packs                []vault.PackInfo `json:"packs"`
}

// Reference is `reference update --json`: what loading the bundled
// reference facts changed, the bundle's digest and the time it took.
type Reference struct {
	Reference vault.BulkResult `json:"reference"`
	Seconds   float64          `json:"seconds"`
	Version   string           `json:"version"`
}

// Reindexed is `reindex --json`.
type Reindexed struct {
	Embedded int    `json:"embedded"` // records embedded
	Model    string `json:"model"`
	SHA256   string `json:"sha256"` // of the model, hex
}

// AtomizePlan is `atomize --out FILE --json`: the plan written.
type AtomizePlan struct {
	Memories int    `json:"memories"`
	Path     string `json:"path"`
}

// DaemonStopped is `embed-daemon stop --json`.
type DaemonStopped struct {
	Stopped bool `json:"stopped"` // false: it was not running
}
