package api

import "github.com/compartment/compartment/internal/vault"

// Export is what `export --plaintext FILE` returns.
type Export struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
}

// Import is what `import` returns: the counts, and what the import cost
// (its time and the process's peak memory, which stays bounded by a batch
// beside the vault's own, whatever the file's size).
type Import struct {
	vault.ImportResult
	Seconds   float64 `json:"seconds"`
	LinesPerS float64 `json:"lines_per_s"`
	PeakRSSMB float64 `json:"peak_rss_mb,omitempty"` // 0 where /proc is missing
}
