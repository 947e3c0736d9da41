package vault

// ReferenceNamespace is where the reference facts live: the one pack kept
// in main as ordinary (reference-flagged) memories.
const ReferenceNamespace = "main"

// LoadReference makes the vault's reference facts exactly facts: facts
// already there are kept as they are, new ones are added, ones the pack no
// longer has are removed. The user's own memories, packs and relations are
// not touched. version (the pack's digest) goes into the audit entry.
func (v *Vault) LoadReference(facts []BulkFact, version string) (BulkResult, error) {
	if len(version) > 12 {
		version = version[:12]
	}
	return v.bulkReplace(bulkScope{namespace: ReferenceNamespace, reference: true}, facts, "reference", "reference pack "+version)
}
