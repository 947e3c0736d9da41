package vaultfmt

// FormatVersion is the newest vault format version this build reads and
// writes. A release signs it beside each binary, so `compartment update`
// can refuse a binary that could not open the vaults already written.
const FormatVersion = int(formatVersion)
