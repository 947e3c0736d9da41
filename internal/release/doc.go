// Package release owns the signatures that make a compartment binary
// trustworthy to install or update to: the release key files, the
// signature that travels beside each binary (compartment.sig), the signed
// checksum list of a release (SHA256SUMS, SHA256SUMS.sig), and the set of
// public keys this build trusts. FORMAT.md section 9 specifies every file.
// It knows nothing about vaults, models or the network: it reads files it
// is given and answers whether they are what a trusted key signed.
package release
